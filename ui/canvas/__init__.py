"""The graph canvas: scene items, the scene builder, the view and the minimap."""
