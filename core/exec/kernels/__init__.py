"""Operator kernels. Every module in this package registers its kernels with
`..registry.kernel` when imported; importing the package loads them all."""
import importlib
import pkgutil


def _load_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_all()
