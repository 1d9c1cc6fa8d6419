"""Input that cannot be read ends in one clean `FILE:LINE:COL: error:` line and exit status 2.

Groups: unreadable files (missing, a directory, empty, non-UTF-8); MLIR syntax and
verification errors with their positions; `--split-input-file` positions relative to the
whole file; the generic form of `pto.section.simt`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.promote.harness import DATA, promote


def _write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "in.pto"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def test_a_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "absent.pto"
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:1:1: error: cannot read the file: No such file or directory\n"


def test_a_directory_is_a_clean_error(tmp_path: Path) -> None:
    result = promote(tmp_path)
    assert result.status == 2
    assert result.stderr.startswith(f"{tmp_path}:1:1: error: cannot read the file")


@pytest.mark.parametrize("content", ["", "\n\n   \n", "// only a comment\n"])
def test_an_empty_file_is_a_clean_error(tmp_path: Path, content: str) -> None:
    path = _write(tmp_path, content)
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:1:1: error: expected a module, found no operation\n"


def test_non_utf8_bytes_are_reported_at_their_position(tmp_path: Path) -> None:
    path = _write(tmp_path, b"module {\n  %x = \xff\n}\n")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:2:8: error: the file is not valid UTF-8 (byte 0xff)\n"


def test_a_truncated_file_is_a_syntax_error_at_the_end(tmp_path: Path) -> None:
    text = (DATA / "01_no_hint_in_section.pto").read_text()
    path = _write(tmp_path, text[: text.index("llvm.store") + len("llvm.store %one, %p")])
    result = promote(path)
    assert result.status == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"{path}:14:")
    assert result.stderr.count("\n") == 1


def test_a_type_mismatch_is_reported_at_the_operand(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %c0 step %c1 {
    }
    return
  }
}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == (f"{path}:5:34: error: operand is used with type index, but has been "
                             "previously used or defined with type i32\n")


def test_a_verifier_failure_names_the_op(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    %x = arith.index_cast %c0 : index to index
    return
  }
}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stderr.startswith(f"{path}:4:10: error: 'arith.index_cast' op ")


def test_a_negative_constant_step_is_rejected_like_mlir(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    %m1 = arith.constant -1 : index
    scf.for %i = %c0 to %c0 step %m1 {
    }
    return
  }
}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:5:5: error: constant step operand must be positive\n"


def test_a_registered_op_without_custom_syntax_asks_for_the_generic_form(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    scf.parallel (%i) = (%c0) to (%c0) step (%c0) {
      scf.reduce
    }
    return
  }
}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == (f"{path}:4:5: error: operation 'scf.parallel' has no custom syntax "
                             "slotsat knows; write it in generic form\n")


def test_split_input_positions_are_relative_to_the_whole_file(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
}
// -----
module {
  func.func @f() {
    return %x : index
  }
}
""")
    result = promote(path, "--split-input-file")
    assert result.status == 2
    # every chunk's result is printed (issue 15.3): the good module, then the failed chunk's line
    assert result.stdout == "builtin.module {\n}\n// -----\n// chunk at line 4 failed: see its diagnostics\n"
    assert result.stderr == f"{path}:6:12: error: values used but not defined: [%x]\n"


def test_split_input_chunks_are_joined_with_the_marker(tmp_path: Path) -> None:
    path = _write(tmp_path, "module {\n}\n// -----\nmodule {\n}\n")
    result = promote(path, "--split-input-file")
    assert result.status == 0
    assert result.stdout == "builtin.module {\n}\n// -----\nbuiltin.module {\n}\n"


def test_without_split_the_marker_is_a_comment(tmp_path: Path) -> None:
    path = _write(tmp_path, "module {\n}\n// -----\n")
    result = promote(path)
    assert result.status == 0
    assert result.stdout == "builtin.module {\n}\n"


def test_the_generic_section_form_is_read_and_printed_in_custom_form(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    "pto.section.simt"() ({
      %c0 = arith.constant 0 : index
    }) {dimX = 32 : i32, dimY = 2 : i32, dimZ = 1 : i32} : () -> ()
    return
  }
}
""")
    result = promote(path)
    assert result.status == 0
    assert "pto.section.simt<<<32, 2, 1>>> {" in result.stdout


def test_unregistered_types_and_attributes_are_kept(tmp_path: Path) -> None:
    head = 'module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {\n'
    path = _write(tmp_path, head + """  func.func @f(%p: !pto.ptr<f32, ub>) attributes {pto.entry} {
    return
  }
}
""")
    result = promote(path)
    assert result.status == 0
    assert "#pto.kernel_kind<vector>" in result.stdout
    assert "!pto.ptr<f32, ub>" in result.stdout
    assert "attributes {pto.entry}" in result.stdout


def test_a_section_round_trips_to_a_fixed_point(tmp_path: Path) -> None:
    first = promote(DATA / "07_kernel_loop_dependence.pto")
    again = promote(_write(tmp_path, first.stdout))
    assert first.status == again.status == 0
    assert again.stdout == first.stdout


def test_an_unterminated_string_fails_fast(tmp_path: Path) -> None:
    # xdsl's string-literal pattern backtracks exponentially on this line; slotsat's lexer
    # does not (this would take hours with the original pattern).
    path = _write(tmp_path, 'module {\n  "pto.x' + "a b c d e f " * 10 + "\n}\n")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:2:3: error: End of file reached before closing string literal.\n"


def test_a_verifier_crash_on_malformed_ir_is_a_clean_error(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    %r = scf.while (%w = %c0) : (index) -> index {
      %t = arith.cmpi slt, %w, %c0 : index
      scf.condition(%t) %w : index
    } do {
      scf.yield %c0 : index
    }
    return
  }
}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stderr.startswith(f"{path}:4:10: error: 'scf.while' op ")


def test_an_astronomical_integer_width_is_rejected_like_mlir(tmp_path: Path) -> None:
    path = _write(tmp_path, "module {\n  %c = arith.constant 8 : i9223372036854775807\n}\n")
    result = promote(path)
    assert result.status == 2
    assert result.stderr == f"{path}:2:27: error: integer bitwidth is limited to 16777215 bits\n"


@pytest.mark.parametrize(("index", "col"), [("2147483648", 34), ("-2147483648", 34), ("2147483649", 34)])
def test_a_gep_constant_outside_i32_is_a_located_error(tmp_path: Path, index: str, col: int) -> None:
    # xdsl folds [2**31, 2**32) into negative i32 values: 2**31 became the dynamic-index marker
    # (an IndexError in its printer), 2**31 + 1 a silently different index (issue 13.9).
    path = _write(tmp_path, f"""module {{
  func.func @k() {{
    %n = arith.constant 4 : i32
    %buf = llvm.alloca %n x f32 {{pto.persistent}} : (i32) -> !llvm.ptr
    %p = llvm.getelementptr %buf[{index}] : (!llvm.ptr) -> !llvm.ptr, f32
    return
  }}
}}
""")
    result = promote(path)
    assert result.status == 2
    assert result.stdout == ""
    assert result.stderr == (f"{path}:5:{col}: error: constant GEP index {index} does not fit in i32 "
                             "without the dynamic-index marker (allowed: -2147483647 to 2147483647); "
                             "use an SSA index\n")


def test_the_largest_gep_constants_print_back(tmp_path: Path) -> None:
    path = _write(tmp_path, """module {
  func.func @k() {
    %n = arith.constant 4 : i32
    %buf = llvm.alloca %n x f32 {pto.persistent} : (i32) -> !llvm.ptr
    %p = llvm.getelementptr %buf[2147483647] : (!llvm.ptr) -> !llvm.ptr, f32
    %q = llvm.getelementptr %buf[-2147483647] : (!llvm.ptr) -> !llvm.ptr, f32
    return
  }
}
""")
    result = promote(path)
    assert result.status == 0
    assert "llvm.getelementptr %buf[2147483647]" in result.stdout
    assert "llvm.getelementptr %buf[-2147483647]" in result.stdout
