"""Package layout: core/ and ui/ install as onnxstudio.core and onnxstudio.ui.

Sub-packages are discovered here so nobody has to list new folders by hand.
"""
import pathlib

from setuptools import setup

ROOT = pathlib.Path(__file__).parent
MAPPING = {
    "onnxstudio": "onnxstudio",
    "onnxstudio.core": "core",
    "onnxstudio.ui": "ui",
    "onnxstudio.resources": "resources",
}


def discover():
    packages, package_dir = [], {}
    for name, folder in MAPPING.items():
        package_dir[name] = folder
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            packages.append(".".join([name, *rel.parts]) if rel.parts else name)
    return packages, package_dir


packages, package_dir = discover()

setup(
    packages=packages,
    package_dir=package_dir,
    include_package_data=True,
    package_data={
        "onnxstudio.core.proto": ["*.proto", "*.pyi"],
        "onnxstudio.core.schemas": ["*.json", "*.json.gz"],
        "onnxstudio.resources": ["**/*"],
    },
)
