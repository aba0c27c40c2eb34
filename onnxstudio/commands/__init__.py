"""One module per sub-command (see onnxstudio/cli.py)."""
