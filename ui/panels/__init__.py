"""Docked panels: properties (node, value, initializer, model) and the tensor view."""
