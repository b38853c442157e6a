"""P4 AST -> Python source: the softswitch execution engine's code generator."""

from .program import CompiledProgram, compile_program

__all__ = ["CompiledProgram", "compile_program"]
