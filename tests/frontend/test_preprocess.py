"""Tests for the pure-Python C-style preprocessor used by the P4 frontend."""

from __future__ import annotations

from pathlib import Path

import pytest

from softswitch.frontend.preprocess import (
    Preprocessed,
    PreprocessError,
    SourceLine,
    preprocess,
    preprocess_text,
    system_include_dir,
)


def lines(result: Preprocessed) -> list[str]:
    out = result.text.split("\n")
    assert out[-1] == ""
    out.pop()
    assert len(out) == len(result.origins)
    return out


def code(result: Preprocessed) -> list[str]:
    """Non-blank output lines, stripped."""
    return [ln.strip() for ln in lines(result) if ln.strip()]


def pp(text: str, **kw: object) -> Preprocessed:
    return preprocess_text(text, "main.p4", **kw)  # type: ignore[arg-type]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---------------------------------------------------------------- basics


def test_plain_text_passes_through_with_one_line_per_source_line() -> None:
    src = "header h_t {\n    bit<8> f;\n}\n"
    r = pp(src)
    assert r.text == src
    assert r.origins == (
        SourceLine("main.p4", 1),
        SourceLine("main.p4", 2),
        SourceLine("main.p4", 3),
    )


def test_missing_final_newline_and_empty_input() -> None:
    r = pp("a\nb")
    assert lines(r) == ["a", "b"]
    assert pp("").text == ""
    assert pp("").origins == ()


def test_locate_clamps_and_rejects_empty() -> None:
    r = pp("a\nb\n")
    assert r.locate(1) == SourceLine("main.p4", 1)
    assert r.locate(2) == SourceLine("main.p4", 2)
    assert r.locate(3) == SourceLine("main.p4", 2)
    assert r.locate(0) == SourceLine("main.p4", 1)
    with pytest.raises(ValueError):
        pp("").locate(1)


# ---------------------------------------------------------------- comments


def test_comments_removed_and_line_numbers_kept() -> None:
    src = "a = 1; // trailing\n/* block\n   spanning\n   lines */ b = 2;\nc /* inline */ = 3;\n"
    r = pp(src)
    out = lines(r)
    assert len(out) == 5
    assert out[0].rstrip() == "a = 1;"
    assert out[1].strip() == "" and out[2].strip() == ""
    assert out[3].strip() == "b = 2;"
    # comment replaced by spaces: columns are preserved
    assert out[3].index("b") == src.splitlines()[3].index("b")
    assert out[4].split() == ["c", "=", "3;"]
    assert r.locate(4) == SourceLine("main.p4", 4)


def test_comment_markers_inside_strings_are_kept() -> None:
    r = pp('log_msg("a // b /* c */");\n')
    assert lines(r) == ['log_msg("a // b /* c */");']


def test_block_comment_inside_directive_spanning_lines() -> None:
    src = "#define X 1 /* a\n b */ + 2\nX\n"
    r = pp(src)
    out = lines(r)
    assert out[2].split() == ["1", "+", "2"]
    assert r.locate(3).line == 3


def test_unterminated_comment_is_an_error() -> None:
    with pytest.raises(PreprocessError) as exc:
        pp("a\n  /* never closed\nb\n")
    assert (exc.value.line, exc.value.col) == (2, 3)
    assert "unterminated comment" in str(exc.value)


def test_line_continuation_joined_and_padded() -> None:
    src = "#define LONG 1 + \\\n   2\nx = LONG;\ny\n"
    r = pp(src)
    out = lines(r)
    assert len(out) == 4
    assert out[2].split() == ["x", "=", "1", "+", "2;"]
    assert r.locate(3).line == 3
    assert r.locate(4).line == 4


# ---------------------------------------------------------------- macros


def test_object_like_macros_nested() -> None:
    src = "#define W 8\n#define T bit<W>\nT f; WW W_ _W W\n"
    assert code(pp(src)) == ["bit<8> f; WW W_ _W 8"]


def test_function_like_macros_with_nesting() -> None:
    src = (
        "#define ADD(a, b) ((a) + (b))\n"
        "#define TWICE(x) ADD(x, x)\n"
        "#define ONE 1\n"
        "y = TWICE(ADD(ONE, 2));\n"
        "z = ADD((1, 2), 3);\n"
    )
    assert code(pp(src)) == [
        "y = ((((1) + (2))) + (((1) + (2))));",
        "z = (((1, 2)) + (3));",
    ]


def test_function_like_name_without_parens_is_not_expanded() -> None:
    src = "#define F(x) x\nint F; F ( 3 )\n"
    assert code(pp(src)) == ["int F; 3"]


def test_macro_not_reexpanded_inside_itself() -> None:
    src = "#define foo foo + 1\n#define a b\n#define b a\nfoo; a; b;\n"
    assert code(pp(src)) == ["foo + 1; a; b;"]


def test_standard_rescan_example() -> None:
    src = "#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)\n"
    assert code(pp(src)) == ["2*9*g"]


def test_stringize_and_paste() -> None:
    src = (
        "#define STR(x) #x\n#define CAT(a, b) a ## b\n#define XSTR(x) STR(x)\n#define V 42\n"
        'STR( hello   "q" \\n ) CAT(my, _hdr) CAT(, x) CAT(8w, 5) STR(V) XSTR(V)\n'
    )
    assert code(pp(src)) == ['"hello \\"q\\" \\n" my_hdr x 8w5 "V" "42"']


def test_variadic_macros() -> None:
    src = '#define LOG(fmt, ...) log_msg(fmt, ## __VA_ARGS__)\nLOG("a"); LOG("b {}", {x});\n'
    assert code(pp(src)) == ['log_msg("a"); log_msg("b {}",{x});']
    # as with GNU cpp, the comma is only dropped when the variable part is omitted
    assert code(pp('#define E(f, a...) fn(f, ## a)\nE("c",) E("d")\n')) == ['fn("c",) fn("d")']


def test_macro_call_spanning_lines() -> None:
    src = "#define F(a, b) a + b\nx = F(1,\n      2);\nnext\n"
    r = pp(src)
    out = lines(r)
    assert out[1].split() == ["x", "=", "1", "+", "2;"]
    assert out[2] == ""
    assert out[3] == "next"
    assert r.locate(4) == SourceLine("main.p4", 4)


def test_macro_name_at_end_of_line_followed_by_other_text() -> None:
    src = "#define F(a) a\nF\nnext\n"
    assert lines(pp(src)) == ["", "F", "next"]


def test_no_expansion_in_strings_or_inside_identifiers_or_numbers() -> None:
    src = '#define X 7\n#define w0 bad\n"X" X_Y _X X1 8w0 X\n'
    assert code(pp(src)) == ['"X" X_Y _X X1 8w0 7']


def test_expansion_does_not_glue_tokens() -> None:
    src = "#define NEG -1\n#define EMPTY\nx = -NEG; a EMPTY b\n"
    out = code(pp(src))
    assert out[0].split() == ["x", "=", "-", "-1;", "a", "b"]


def test_undef() -> None:
    src = "#define X 1\nX\n#undef X\nX\n"
    assert code(pp(src)) == ["1", "X"]


def test_wrong_argument_count_is_error() -> None:
    with pytest.raises(PreprocessError) as exc:
        pp("#define F(a, b) a\n\nF(1)\n")
    assert exc.value.line == 3
    assert "requires 2 arguments" in exc.value.message


def test_unterminated_macro_call_is_error() -> None:
    with pytest.raises(PreprocessError, match="unterminated argument list"):
        pp("#define F(a) a\nF(1,\n")


def test_builtin_file_and_line() -> None:
    assert code(pp("\n__LINE__ __FILE__\n")) == ['2 "main.p4"']


def test_command_line_defines() -> None:
    src = "#ifdef FLAG\nA=FLAG\n#endif\nB=SIZE\nC=SQ(3)\n"
    r = pp(src, defines={"FLAG": "", "SIZE": "64", "SQ(x)": "((x)*(x))"})
    assert code(r) == ["A=1", "B=64", "C=((3)*(3))"]


# ---------------------------------------------------------------- conditionals


def test_ifdef_ifndef_else() -> None:
    src = "#define A\n#ifdef A\na\n#else\nnot_a\n#endif\n#ifndef B\nnot_b\n#endif\n"
    r = pp(src)
    assert code(r) == ["a", "not_b"]
    assert r.locate(3).line == 3
    assert len(lines(r)) == 9


def test_if_expressions() -> None:
    src = (
        "#define V 20200408\n"
        "#define TWO 2\n"
        "#if V >= 20200408 && defined(TWO) && defined TWO && !defined(NOPE)\nok1\n#endif\n"
        "#if (TWO * 3 + 1) % 4 == 3 && (1 << 4) == 0x10 && -1 < 0 && 010 == 8\nok2\n#endif\n"
        "#if UNDEFINED_NAME || 0\nbad\n#endif\n"
        "#if TWO > 1 ? 0 : 1\nbad\n#else\nok3\n#endif\n"
        "#if 0 && (1 / 0)\nbad\n#endif\n"
        "#if ~0 == -1 && (7 / -2) == -3 && (7 % -2) == 1\nok4\n#endif\n"
    )
    assert code(pp(src)) == ["ok1", "ok2", "ok3", "ok4"]


def test_elif_chain() -> None:
    template = "#if X == 1\none\n#elif X == 2\ntwo\n#elif X == 3\nthree\n#else\nother\n#endif\n"
    for value, expected in (("1", "one"), ("2", "two"), ("3", "three"), ("9", "other")):
        assert code(pp(template, defines={"X": value})) == [expected]


def test_elif_not_evaluated_after_taken_branch() -> None:
    src = "#if 1\nyes\n#elif 1/0\nno\n#endif\n"
    assert code(pp(src)) == ["yes"]


def test_nested_conditionals_inside_false_branch() -> None:
    src = (
        "#if 0\n"
        "#if 1\nbad1\n#else\nbad2\n#endif\n"
        "#ifdef ANYTHING\n#error not reached\n#elif garbage (((\n#endif\n"
        '#include "does_not_exist.p4"\n'
        "#bogus directive\n"
        "#elif 1\n"
        "#if 0\nbad3\n#elif 1\ngood\n#endif\n"
        "#endif\n"
    )
    r = pp(src)
    assert code(r) == ["good"]
    assert r.locate(lines(r).index("good") + 1).line == 17


def test_conditional_errors() -> None:
    cases = {
        "#if 1\nx\n": "unterminated #if",
        "#endif\n": "#endif without #if",
        "#else\n": "#else without #if",
        "#if 1\n#else\n#else\n#endif\n": "#else after #else",
        "#if 1\n#else\n#elif 1\n#endif\n": "#elif after #else",
        "#if\n#endif\n": "#if with no expression",
        "#if 1 +\n#endif\n": "#if expression",
        "#if 1/0\n#endif\n": "division by zero",
        "#if 8w1\n#endif\n": "invalid integer constant",
    }
    for src, message in cases.items():
        with pytest.raises(PreprocessError, match=message):
            pp(src)


def test_unterminated_if_reports_position_of_if() -> None:
    with pytest.raises(PreprocessError) as exc:
        pp("a\n  #ifdef X\nb\n")
    assert (exc.value.line, exc.value.col) == (2, 4)


# ---------------------------------------------------------------- #error / #warning / #pragma / #line


def test_error_directive() -> None:
    with pytest.raises(PreprocessError) as exc:
        pp("a\n\n#error Unsupported target 42\n")
    err = exc.value
    assert (err.file, err.line, err.col) == ("main.p4", 3, 2)
    assert err.message == "#error Unsupported target 42"
    assert str(err) == "main.p4:3:2: error: #error Unsupported target 42"


def test_error_directive_in_included_file(tmp_path: Path) -> None:
    write(tmp_path / "inc" / "bad.p4", "ok\n#error from include\n")
    main = write(tmp_path / "main.p4", '#include "inc/bad.p4"\n')
    with pytest.raises(PreprocessError) as exc:
        preprocess(main)
    assert exc.value.file == str(tmp_path / "inc" / "bad.p4")
    assert exc.value.line == 2
    assert str(exc.value).endswith(":2:2: error: #error from include")


def test_warning_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    r = pp("x\n#warning careful now\ny\n")
    assert code(r) == ["x", "y"]
    assert "main.p4:2:2: warning: #warning careful now" in capsys.readouterr().err


def test_pragmas_dropped() -> None:
    r = pp("#pragma something else\nx\n")
    assert lines(r) == ["", "x"]


def test_invalid_directive_is_error() -> None:
    with pytest.raises(PreprocessError, match="invalid preprocessing directive #frobnicate"):
        pp("#frobnicate\n")


def test_line_directive_changes_origins() -> None:
    src = 'a\n#line 100\nb\nc\n#line 7 "gen.p4"\nd __LINE__ __FILE__\n# 50 "marker.p4" 2\ne\n'
    r = pp(src)
    out = lines(r)
    assert r.origins[0] == SourceLine("main.p4", 1)
    assert r.origins[out.index("b")] == SourceLine("main.p4", 100)
    assert r.origins[out.index("c")] == SourceLine("main.p4", 101)
    d_index = next(i for i, ln in enumerate(out) if ln.startswith("d"))
    assert r.origins[d_index] == SourceLine("gen.p4", 7)
    assert out[d_index] == 'd 7 "gen.p4"'
    assert r.origins[out.index("e")] == SourceLine("marker.p4", 50)


def test_line_directive_errors_use_new_position() -> None:
    with pytest.raises(PreprocessError) as exc:
        pp('#line 20 "x.p4"\n\n#error boom\n')
    assert (exc.value.file, exc.value.line) == ("x.p4", 21)


# ---------------------------------------------------------------- includes


def test_quoted_include_relative_to_including_file(tmp_path: Path) -> None:
    write(tmp_path / "lib" / "defs.p4", "#define W 16\n")
    write(tmp_path / "lib" / "types.p4", '#include "defs.p4"\ntypedef bit<W> word_t;\n')
    main = write(tmp_path / "main.p4", '#include "lib/types.p4"\nword_t w;\n')
    r = preprocess(main)
    out = lines(r)
    assert code(r) == ["typedef bit<16> word_t;", "word_t w;"]
    t = out.index("typedef bit<16> word_t;")
    assert r.origins[t] == SourceLine(str(tmp_path / "lib" / "types.p4"), 2)
    w = out.index("word_t w;")
    assert r.origins[w] == SourceLine(str(main), 2)
    # every output line maps to some real line of some file
    files = {o.file for o in r.origins}
    assert files == {
        str(main),
        str(tmp_path / "lib" / "types.p4"),
        str(tmp_path / "lib" / "defs.p4"),
    }


def test_angle_include_uses_include_dirs_not_current_dir(tmp_path: Path) -> None:
    write(tmp_path / "here" / "x.p4", "from_here\n")
    write(tmp_path / "sys" / "x.p4", "from_include_dir\n")
    main = write(tmp_path / "here" / "main.p4", '#include <x.p4>\n#include "x.p4"\n')
    r = preprocess(main, include_dirs=[tmp_path / "sys"])
    assert code(r) == ["from_include_dir", "from_here"]


def test_quoted_include_falls_back_to_include_dirs(tmp_path: Path) -> None:
    write(tmp_path / "sys" / "only_here.p4", "found\n")
    main = write(tmp_path / "main.p4", '#include "only_here.p4"\n')
    assert code(preprocess(main, include_dirs=[tmp_path / "sys"])) == ["found"]


def test_system_include_dir_holds_architecture_files() -> None:
    d = system_include_dir()
    assert (d / "core.p4").is_file()
    assert (d / "v1model.p4").is_file()


def test_include_guard_and_pragma_once(tmp_path: Path) -> None:
    write(tmp_path / "guarded.p4", "#ifndef G\n#define G\nguarded\n#endif\n")
    write(tmp_path / "once.p4", "#pragma once\nonce\n")
    main = write(
        tmp_path / "main.p4",
        '#include "guarded.p4"\n#include "once.p4"\n#include "guarded.p4"\n#include "once.p4"\n',
    )
    assert code(preprocess(main)) == ["guarded", "once"]


def test_include_via_macro(tmp_path: Path) -> None:
    write(tmp_path / "arch.p4", "arch\n")
    main = write(tmp_path / "main.p4", '#define ARCH "arch.p4"\n#include ARCH\n')
    assert code(preprocess(main)) == ["arch"]


def test_missing_include_reports_position(tmp_path: Path) -> None:
    main = write(tmp_path / "main.p4", 'ok\n  #include  "nothere.p4"\n')
    with pytest.raises(PreprocessError) as exc:
        preprocess(main)
    err = exc.value
    assert (err.file, err.line, err.col) == (str(main), 2, 13)
    assert err.message == "nothere.p4: No such file or directory"
    assert str(err) == f"{main}:2:13: error: nothere.p4: No such file or directory"


def test_missing_angle_include_in_nested_file(tmp_path: Path) -> None:
    inc = write(tmp_path / "a.p4", "\n\n#include <gone.p4>\n")
    main = write(tmp_path / "main.p4", '#include "a.p4"\n')
    with pytest.raises(PreprocessError) as exc:
        preprocess(main)
    assert (exc.value.file, exc.value.line, exc.value.col) == (str(inc), 3, 10)


def test_recursive_include_without_guard_is_error(tmp_path: Path) -> None:
    main = write(tmp_path / "main.p4", '#include "main.p4"\n')
    with pytest.raises(PreprocessError, match="nested depth"):
        preprocess(main)


def test_origins_across_includes(tmp_path: Path) -> None:
    write(tmp_path / "inc.p4", "i1\n// comment\ni3\n")
    main = write(tmp_path / "main.p4", 'm1\n#include "inc.p4"\nm3\n')
    r = preprocess(main)
    out = lines(r)
    inc = str(tmp_path / "inc.p4")
    assert r.locate(out.index("i1") + 1) == SourceLine(inc, 1)
    assert r.locate(out.index("i3") + 1) == SourceLine(inc, 3)
    assert r.locate(out.index("m1") + 1) == SourceLine(str(main), 1)
    assert r.locate(out.index("m3") + 1) == SourceLine(str(main), 3)
    # one output line per source line of each file (the #include line itself included)
    assert len(out) == 3 + 3


def test_preprocess_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(PreprocessError, match="cannot read file"):
        preprocess(tmp_path / "absent.p4")


# ---------------------------------------------------------------- strings spanning lines
# Expected lines are what `cpp -C -undef -nostdinc -x assembler-with-cpp` (as p4c runs
# it) writes for the same input.


def test_string_spanning_lines_keeps_comment_text_and_expands_macros() -> None:
    src = (
        "#define LIMIT 7\n"
        '@entry_restriction("  keep   this  \n'
        "\t\tx   <   LIMIT  // a   note on LIMIT  \n"
        "   /* kept  LIMIT */  y   \n"
        "  it's  LIMIT too  \n"
        '  done ") table t;\n'
    )
    assert lines(pp(src)) == [
        "",
        '@entry_restriction("  keep   this  ',
        "  x < 7 // a   note on LIMIT  ",
        "   /* kept  LIMIT */ y",
        "  it's  LIMIT too  ",
        '  done ") table t;',
    ]


def test_string_spanning_lines_obeys_directives_and_ends_at_its_quote() -> None:
    src = (
        '@a("one\n'
        "#ifdef NOPE\n"
        "  two\n"
        "#endif\n"
        '  three")  // a comment after the string\n'
        "x; /* gone */\n"
    )
    # (cpp keeps the comments outside the string; here they are blanks)
    assert [ln.rstrip() for ln in lines(pp(src))] == ['@a("one', "", "", "", '  three")', "x;"]


def test_multi_line_annotation_string_reaches_p4info() -> None:
    from softswitch.compiler import compile_text
    from softswitch.p4info import p4info_for
    from tests.p4util import program

    decls = (
        "#define WIDE 0x0800\n"
        "header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; }\n"
        "control T(inout h_t h) {\n"
        "    action set_a(bit<8> v) { h.a = v; }\n"
        '    @entry_restriction("\n'
        "        // op selects the rule   (not a comment to p4c)\n"
        "        op   !=   WIDE;\n"
        '    ") table rules { key = { h.op: ternary @name("op"); } actions = { set_a; } }\n'
        "    apply { rules.apply(); }\n"
        "}\n"
    )
    src = program(decls=decls, ingress="T() t; apply { t.apply(hdr.h); }")
    info = p4info_for(compile_text(src, "multi.p4"))
    [table] = info.tables
    assert list(table.preamble.annotations) == [
        '@entry_restriction("\n        // op selects the rule   (not a comment to p4c)\n'
        '        op != 0x0800;\n    ")'
    ]
