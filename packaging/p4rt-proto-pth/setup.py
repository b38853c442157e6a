"""Puts sprayfabric-p4rt-proto.pth at the root of the wheel, i.e. into site-packages."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

PTH = "sprayfabric-p4rt-proto.pth"


class BuildWithPth(build_py):
    def run(self) -> None:
        super().run()
        self.mkpath(self.build_lib)
        self.copy_file(PTH, str(Path(self.build_lib) / PTH), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


class PthOnly(Distribution):
    """A distribution without modules: setuptools would skip build_py and install_lib."""

    def has_pure_modules(self) -> bool:
        return True


setup(distclass=PthOnly, cmdclass={"build_py": BuildWithPth})
