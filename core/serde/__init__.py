"""Reading and writing .onnx files (io.py), protobuf <-> IR (convert.py) and
the tensor codec (codec.py). Import the modules directly; this package does
not import them eagerly because the IR's Tensor uses the codec."""
