"""`onnxstudio convert IN OUT [--external-data FILE] [--size-threshold BYTES] [--inline]`"""
from __future__ import annotations

from ..core import SaveOptions, load, save
from ..core.serde.io import has_external_data
from ..errors import UserError

NAME = "convert"


def configure(p) -> None:
    p.add_argument("input", help="the .onnx file to read")
    p.add_argument("output", help="the .onnx file to write (written atomically)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--external-data", metavar="FILE",
                       help="put every tensor of at least --size-threshold bytes into FILE, "
                            "next to OUTPUT")
    where.add_argument("--inline", action="store_true", help="store all tensors inside OUTPUT")
    p.add_argument("--size-threshold", type=int, default=1024, metavar="BYTES",
                   help="smaller tensors stay inline (default 1024)")


def run(args) -> int:
    if args.size_threshold < 0:
        raise UserError("--size-threshold must be 0 or more")
    if args.external_data is not None and not args.external_data.strip():
        # An empty name would quietly keep every tensor inline.
        raise UserError("--external-data: give the name of the data file to write next to OUTPUT "
                        "(or --inline to keep every tensor in the model file)")
    model = load(args.input)
    opts = SaveOptions(external_data="" if args.inline else args.external_data,
                       size_threshold=args.size_threshold)
    save(model, args.output, opts)
    if args.external_data and not has_external_data(load(args.output)):
        # Nothing reached the threshold: say so, or the user looks for a data file that is not there.
        print(f"wrote {args.output} with every tensor inside it: none has --size-threshold "
              f"{args.size_threshold} bytes or more, so {args.external_data} was not written "
              f"(give a lower --size-threshold to move smaller tensors)")
        return 0
    print(f"wrote {args.output}")
    return 0
