#!/usr/bin/env python3
"""Writes the line_hash test vectors: NAME.md (a tasks file, exact bytes) and
NAME.expect.json (every task of the file, listed by hand, with its line_hash).

The expected hashes are computed here, independently of the Go code (SPEC §4
line_hash): take line N of the file, lines ending at b"\\n", b"\\r\\n" or a lone
b"\\r" (CommonMark's line endings), drop a UTF-8 BOM at the start of line 1, replace the byte just after the box's "[" (found
by hand: the column is listed below) with a space, sha256, lowercase hex.
A task line without a written task ID has the derived ID "h-" + the first 12 hex
digits of sha256 of its title (the text after the box and [..] markers, trimmed,
written out by hand below).
Run: python3 gen.py (from this directory).
"""
import hashlib, json, re

BOM = "\ufeff"


def derived(title: str) -> str:
    return "h-" + hashlib.sha256(title.encode()).hexdigest()[:12]


VECTORS = {
    # name: (format, file text, [(task id, line number, box column of "[")...])
    "speckit_crlf_bom": ("speckit",
        BOM + "# Tasks: CRLF and BOM\r\n"
        "\r\n"
        "## Phase 1\r\n"
        "- [X] T001 Create project structure\r\n"
        "- [x] T002 [P] Configure linting in `.eslintrc.json`\r\n"
        "- [ ] T003 [P] [US1] Write tests   \r\n"
        "- [-] T004 [US2] In progress\r\n"
        "- [P] tasks = can run in parallel\r\n"
        "- [ ] No ID here\r\n",
        [("T001", 4, 2), ("T002", 5, 2), ("T003", 6, 2), ("T004", 7, 2), (derived("No ID here"), 9, 2)]),
    "speckit_bom_line1": ("speckit",
        BOM + "- [X] T001 Task on the first line after a BOM\n- [x] T002 日本語のタスク\n",
        [("T001", 1, 2), ("T002", 2, 2)]),
    "kiro_japanese": ("kiro",
        "# 実装計画\n"
        "\n"
        "- [x] 1. データ永続化層の実装\n"
        "  - _Requirements: 4.1, 4.2_\n"
        "\n"
        "  - [-] 1.1 Task型定義とストレージインターフェースの作成\n"
        "\t- [X] 1.2 タブで字下げ\n"
        "- [ ] 2. コアビジネスロジック\n"
        "```\n"
        "- [ ] 3. コードブロックの中\n"
        "```\n",
        [("1", 3, 2), ("1.1", 6, 4), ("1.2", 7, 3), ("2", 8, 2)]),
    "openspec_bullets": ("openspec",
        "## 1. Setup\n"
        "* [x] 1.1 Star bullet\n"
        "+ [X] 1.2 Plus bullet\n"
        "1. [x] 1.3 Numbered bullet\n"
        "   - [ ] 1.4. Trailing dot on the ID\n"
        "<!--\n"
        "- [x] 1.5 Inside a comment\n"
        "-->\n"
        "~~~\n"
        "- [x] 1.6 Inside a tilde fence\n"
        "~~~\n"
        "- [x] 1.7 \"quotes\" and \\backslash\\ and a tab\there",
        [("1.1", 2, 2), ("1.2", 3, 2), ("1.3", 4, 3), ("1.4", 5, 5), ("1.7", 12, 2)]),
    # Lone "\r" line endings (classic Mac OS): GitHub renders every box.
    "speckit_cr_only": ("speckit",
        BOM + "# Tasks: CR only\r"
        "\r"
        "- [x] T001 Ticked on line three\r"
        "- [ ] T002 [P] Open\r"
        "  - [X] T003 Nested\r"
        "```\r"
        "- [x] T004 In a fence\r"
        "```\r"
        "- [ ] T005 Last, no line ending",
        [("T001", 3, 2), ("T002", 4, 2), ("T003", 5, 4), ("T005", 9, 2)]),
    # "\r\r\n" is a line ending then an empty line; endings mixed in one file.
    "openspec_mixed_endings": ("openspec",
        "## 1. Setup\r\n"
        "- [x] 1.1 Lone CR after me\r"
        "- [ ] 1.2 CR CR LF after me\r\r\n"
        "- [X] 1.3 LF after me\n"
        "\r"
        "- [ ] 1.4 Last\r",
        [("1.1", 2, 2), ("1.2", 3, 2), ("1.3", 5, 2), ("1.4", 7, 2)]),
    # Lines that hid the tasks below them from a line-by-line reader, and a
    # task in a block quote: line_hash is of the whole source line.
    "kiro_gfm_contexts": ("kiro",
        "# Tasks\n"
        "\n"
        "Comments look like `<!--`.\n"
        "\n"
        "- [x] 1. After a code span\n"
        "\n"
        "## Two\n"
        "\n"
        "    ```\n"
        "\n"
        "- [ ] 2. After a four-space \"fence\"\n"
        "\n"
        "## Three\n"
        "\n"
        "\t```\n"
        "\n"
        "- [x] 3. After a tab \"fence\"\n"
        "> - [ ] 4. Quoted\n"
        "\n"
        "## Five\n"
        "\n"
        "    - [x] 5. Indented code, not a task\n",
        [("1", 5, 2), ("2", 11, 2), ("3", 17, 2), ("4", 18, 4)]),
}


def line_hash(data: bytes, n: int, col: int) -> (str, str):
    line = re.split(b"\r\n|\r|\n", data)[n - 1]
    if n == 1 and line.startswith(BOM.encode()):
        line = line[3:]
    assert line[col:col + 1] == b"[" and line[col + 2:col + 3] == b"]", (n, line)
    open_line = line[:col + 1] + b" " + line[col + 2:]
    return open_line.decode(), hashlib.sha256(open_line).hexdigest()


for name, (fmt, text, tasks) in VECTORS.items():
    data = text.encode()
    with open(name + ".md", "wb") as f:
        f.write(data)
    out = []
    for tid, n, col in tasks:
        ol, h = line_hash(data, n, col)
        out.append({"id": tid, "line": n, "open_line": ol, "line_hash": h})
    with open(name + ".expect.json", "w") as f:
        json.dump({"format": fmt, "tasks": out}, f, ensure_ascii=False, indent=2)
        f.write("\n")
