"""Regenerate core/proto/onnx_pb2.py and .pyi from core/proto/onnx.proto.

Development tool: needs `grpcio-tools` (it bundles a protoc whose output the
protobuf runtime we depend on accepts). Run from the repository root:

    python tools/gen_proto.py
"""
import pathlib
import sys

from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "core" / "proto"


def main() -> int:
    args = [
        "protoc",
        # Registered as "proto/onnx.proto" so it never clashes with the
        # `onnx` package's own "onnx.proto" in the shared descriptor pool.
        f"-I{PROTO_DIR.parent}",
        f"--python_out={PROTO_DIR.parent}",
        f"--pyi_out={PROTO_DIR.parent}",
        str(PROTO_DIR / "onnx.proto"),
    ]
    code = protoc.main(args)
    if code:
        print("protoc failed", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
