"""What the synthetic benchmark models are built with: nodes named the way
exporters name them (`{scope}/{op_type}_{n}`) and initializers from numpy
arrays, through the onnx package (a development tool here, never imported
by the app)."""
from __future__ import annotations

import numpy as np


class GraphBuilder:
    def __init__(self, output_suffix: str = "_out"):
        # Node outputs are named `{node name}{output_suffix}{i}`.
        self.nodes, self.inits, self.count = [], [], 0
        self.output_suffix = output_suffix

    def op(self, op_type, inputs, scope, n_out=1, **attrs):
        """Add a node; its output name (a list of them when n_out > 1)."""
        from onnx import helper
        self.count += 1
        name = f"{scope}/{op_type}_{self.count}"
        outs = [f"{name}{self.output_suffix}{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, name, value):
        """Add an initializer holding `value`; its name."""
        from onnx import numpy_helper
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name
