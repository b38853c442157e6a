"""P4 AST -> Python source: the softswitch execution engine's code generator."""

from ..program_info import CompiledProgram
from .arch_api import Architecture
from .program import compile_program

__all__ = ["Architecture", "CompiledProgram", "compile_program"]
