"""Colours for the canvas and the window, in a light and a dark variant.

Nodes are coloured by op family so the eye can tell convolutions from reshapes
at a glance. The palette is ours; only the idea (family → colour) is borrowed
from Netron. Each family has one hue; the light and dark themes derive header
and body shades from it so both themes stay consistent.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

# op type -> family. Anything not listed falls into "other" (or "ml" by domain).
_FAMILIES: dict[str, tuple[str, ...]] = {
    "conv": ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "Col2Im"),
    "matmul": ("MatMul", "Gemm", "MatMulInteger", "QLinearMatMul", "Einsum", "Attention",
               "MultiHeadAttention", "FusedMatMul"),
    "activation": ("Relu", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "Tanh", "Elu",
                   "Selu", "Celu", "Gelu", "FastGelu", "Softplus", "Softsign", "HardSwish",
                   "Mish", "ThresholdedRelu", "Softmax", "LogSoftmax", "Hardmax", "Swish"),
    "norm": ("BatchNormalization", "LayerNormalization", "InstanceNormalization",
             "GroupNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization",
             "RMSNormalization", "SimplifiedLayerNormalization", "SkipLayerNormalization",
             "Dropout"),
    "pool": ("MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool",
             "GlobalLpPool", "MaxRoiPool", "RoiAlign", "MaxUnpool"),
    "shape": ("Reshape", "Transpose", "Shape", "Size", "Flatten", "Squeeze", "Unsqueeze",
              "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND", "Scatter",
              "ScatterElements", "ScatterND", "Expand", "Tile", "Pad", "Identity", "Cast",
              "CastLike", "DepthToSpace", "SpaceToDepth", "Resize", "Upsample", "Compress",
              "OneHot", "Range", "NonZero", "Where", "SplitToSequence", "ConcatFromSequence",
              "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceInsert",
              "SequenceErase", "SequenceLength", "Trilu", "ReverseSequence", "TopK"),
    "math": ("Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal",
             "Floor", "Ceil", "Round", "Sin", "Cos", "Tan", "Erf", "Max", "Min", "Mean", "Sum",
             "Mod", "Sign", "Clip", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual",
             "Not", "And", "Or", "Xor", "IsNaN", "IsInf", "BitShift", "CumSum", "Det"),
    "reduce": ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
               "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax",
               "ArgMin"),
    "control": ("If", "Loop", "Scan"),
    "recurrent": ("LSTM", "GRU", "RNN"),
    "quant": ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"),
    "constant": ("Constant", "ConstantOfShape", "RandomNormal", "RandomUniform",
                 "RandomNormalLike", "RandomUniformLike", "EyeLike"),
}
_FAMILY_OF = {op: fam for fam, ops in _FAMILIES.items() for op in ops}

# One hue per family (HSL hue in degrees, saturation 0..255).
_HUES = {
    "conv": (212, 150), "matmul": (262, 120), "activation": (352, 140), "norm": (152, 110),
    "pool": (190, 120), "shape": (36, 70), "math": (30, 150), "reduce": (290, 90),
    "control": (48, 200), "recurrent": (320, 110), "quant": (100, 100), "constant": (0, 0),
    "ml": (172, 130), "function": (230, 60), "other": (210, 20),
}


def op_family(op_type: str, domain: str = "") -> str:
    family = _FAMILY_OF.get(op_type)
    if family:
        return family
    if domain == "ai.onnx.ml":
        return "ml"
    return "other"


@dataclass(frozen=True)
class Theme:
    name: str
    dark: bool
    background: QColor
    grid: QColor
    node_body: QColor
    node_border: QColor
    text: QColor
    muted_text: QColor
    edge: QColor
    edge_label: QColor
    selection: QColor
    highlight: QColor
    group_fill: QColor
    group_border: QColor
    io_fill: QColor

    def header_color(self, family: str) -> QColor:
        hue, sat = _HUES.get(family, _HUES["other"])
        # Dark theme: deeper headers so white text keeps its contrast.
        return QColor.fromHsl(hue, sat, 70 if self.dark else 200)

    def family_swatch(self, family: str) -> QColor:
        """The solid colour used when a node is too small to show its text."""
        hue, sat = _HUES.get(family, _HUES["other"])
        return QColor.fromHsl(hue, sat, 95 if self.dark else 170)


LIGHT = Theme(
    name="light", dark=False,
    background=QColor("#fbfbfc"), grid=QColor("#eef0f3"),
    node_body=QColor("#ffffff"), node_border=QColor("#8a94a3"),
    text=QColor("#1d232b"), muted_text=QColor("#5b6573"),
    edge=QColor("#6f7885"), edge_label=QColor("#4a5360"),
    selection=QColor("#e8590c"), highlight=QColor("#ffd43b"),
    group_fill=QColor(236, 240, 246, 200), group_border=QColor("#9aa6b8"),
    io_fill=QColor("#e7eef7"),
)

DARK = Theme(
    name="dark", dark=True,
    background=QColor("#1b1e23"), grid=QColor("#23272e"),
    node_body=QColor("#2a2f37"), node_border=QColor("#59626f"),
    text=QColor("#e6e9ee"), muted_text=QColor("#a3acb8"),
    edge=QColor("#8b95a3"), edge_label=QColor("#b4bcc7"),
    selection=QColor("#ff922b"), highlight=QColor("#fab005"),
    group_fill=QColor(44, 50, 60, 200), group_border=QColor("#6b7687"),
    io_fill=QColor("#243244"),
)

THEMES = {"light": LIGHT, "dark": DARK}


def system_prefers_dark() -> bool:
    app = QGuiApplication.instance()
    if app is None:
        return False
    hints = app.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        value = scheme()
        if value == Qt.ColorScheme.Dark:
            return True
        if value == Qt.ColorScheme.Light:
            return False
    # Older Qt or an unknown scheme: judge by the window colour's lightness.
    return app.palette().color(QPalette.Window).lightness() < 128


def resolve(choice: str) -> Theme:
    """`choice` is "light", "dark" or "system"."""
    if choice in THEMES:
        return THEMES[choice]
    return DARK if system_prefers_dark() else LIGHT


def window_palette(theme: Theme) -> QPalette:
    """A Fusion-friendly palette so docks and menus match the canvas."""
    pal = QPalette()
    if theme.dark:
        base, window, text = QColor("#202329"), QColor("#26292f"), QColor("#e6e9ee")
        pal.setColor(QPalette.Window, window)
        pal.setColor(QPalette.WindowText, text)
        pal.setColor(QPalette.Base, base)
        pal.setColor(QPalette.AlternateBase, window)
        pal.setColor(QPalette.Text, text)
        pal.setColor(QPalette.Button, window)
        pal.setColor(QPalette.ButtonText, text)
        pal.setColor(QPalette.ToolTipBase, QColor("#30343b"))
        pal.setColor(QPalette.ToolTipText, text)
        pal.setColor(QPalette.Highlight, QColor("#3d6fb6"))
        pal.setColor(QPalette.HighlightedText, QColor("#ffffff"))
        pal.setColor(QPalette.Link, QColor("#74a7f0"))
        pal.setColor(QPalette.PlaceholderText, QColor("#7d8591"))
    else:
        pal.setColor(QPalette.Window, QColor("#f3f4f6"))
        pal.setColor(QPalette.Base, QColor("#ffffff"))
        pal.setColor(QPalette.AlternateBase, QColor("#f6f7f9"))
        pal.setColor(QPalette.Text, QColor("#1d232b"))
        pal.setColor(QPalette.WindowText, QColor("#1d232b"))
        pal.setColor(QPalette.Button, QColor("#f3f4f6"))
        pal.setColor(QPalette.ButtonText, QColor("#1d232b"))
        pal.setColor(QPalette.Highlight, QColor("#2f6fcf"))
        pal.setColor(QPalette.HighlightedText, QColor("#ffffff"))
        pal.setColor(QPalette.Link, QColor("#1f5fbf"))
    return pal
