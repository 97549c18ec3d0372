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
        # OpenSpec's own reading counts the boxes in the comment and the fence.
        [("1.1", 2, 2), ("1.2", 3, 2), ("1.3", 4, 3), ("1.4", 5, 5), ("1.5", 7, 2), ("1.6", 10, 2), ("1.7", 12, 2)]),
    # OpenSpec's own reading (1.13): padded boxes, a marker glued to its box,
    # "+" and "1)" markers, boxes in fences, comments and indented code; a
    # link bullet and an empty box are no tasks. The fourth number is the box
    # character's offset from "[" when it is not 1.
    "openspec_native": ("openspec",
        "## 1. Group\n"
        "- [ x] 1.1 Padded left\n"
        "- [x ] 1.2 Padded right\n"
        "-[x] 1.3 Glued to its marker\n"
        "+ [x] 1.4 Plus\n"
        "1) [x] 1.5 Parenthesis\n"
        "```\n"
        "- [x] 1.6 Fenced\n"
        "```\n"
        "<!-- - [x] 1.7 Commented -->\n"
        "    - [x] 1.8 Indented code\n"
        "- [A](https://example.com)\n"
        "- [~] 1.9 Deferred\n"
        "- [] 1.10 Empty box\n",
        [("1.1", 2, 2, 2), ("1.2", 3, 2, 1.0), ("1.3", 4, 1), ("1.4", 5, 2), ("1.5", 6, 3), ("1.6", 8, 2),
         ("1.7", 10, 7), ("1.8", 11, 6), ("1.9", 13, 2)]),
    # spec-workflow-mcp's own reading (2.2.7): "[-]" in progress and "[~]"
    # blocked are open, a numbered box in a fence is a task, "6\." is 6; a
    # box without a number is GitHub's task alone.
    "specworkflow_states": ("spec-workflow",
        "# Tasks\n"
        "\n"
        "- [x] 1. Set up\n"
        "- [-] 2. In progress\n"
        "- [~] 3. Blocked\n"
        "- [X] 4. Upper-case\n"
        "```\n"
        "- [x] 5. Inside a fence\n"
        "```\n"
        "- [x] **P3.0** — no number\n"
        "- [ ] 6\\. Escaped\n",
        [("1", 3, 2), ("2", 4, 2), ("3", 5, 2), ("4", 6, 2), ("5", 8, 2),
         (derived("**P3.0** — no number"), 10, 2), ("6", 11, 2)]),
    # BMAD: "Task N" and "Subtask N.M" labels are IDs; a sub-task without one
    # is known by its task's label and its title; "(AC: …)" is no part of the
    # title.
    "bmad_story": ("bmad",
        "# Story 1.1: Init\n"
        "\n"
        "## Tasks / Subtasks\n"
        "\n"
        "- [x] **Task 1: Initialize Monorepo Structure** (AC: 1.1.1, 1.1.2)\n"
        "  - [x] Create root `package.json`\n"
        "  - [ ] Write tests\n"
        "- [ ] Task 2 (AC: #2)\n"
        "  - [ ] Subtask 2.1 Wire the API\n"
        "  - [ ] Write tests\n"
        "- [x] [High] Fix ESLint configuration\n"
        "- [ ] Write tests\n",
        [("1", 5, 2), ("1." + derived("Create root `package.json`"), 6, 4), ("1." + derived("Write tests"), 7, 4),
         ("2", 8, 2), ("2.1", 9, 4), ("2." + derived("Write tests"), 10, 4),
         (derived("Fix ESLint configuration"), 11, 2), (derived("Write tests"), 12, 2)]),
    # cc-sdd: "(P)" after the number or at the line's end, "- [ ]*" optional.
    "ccsdd_markers": ("cc-sdd",
        "# Implementation Plan\n"
        "\n"
        "- [ ] 1. Foundation\n"
        "- [x] 1.1 (P) Set up the test harness\n"
        "  - _Requirements: 1.1, 2.3_\n"
        "  - _Boundary: TestHarness_\n"
        "- [ ]* 1.2 Write optional property tests (P)\n"
        "- [x] 2. Core\n",
        [("1", 3, 2), ("1.1", 4, 2), ("1.2", 7, 2), ("2", 8, 2)]),
    # Agent OS: "1." major tasks, "1.1" sub-tasks, v2's "2.0".
    "agentos_tasks": ("agent-os",
        "# Spec Tasks\n"
        "\n"
        "## Tasks\n"
        "\n"
        "- [x] 1. Implement the client\n"
        "  - [x] 1.1 Write tests for the client\n"
        "  - [ ] 1.2 Verify all tests pass\n"
        "- [ ] 2.0 Complete the API layer\n",
        [("1", 5, 2), ("1.1", 6, 4), ("1.2", 7, 4), ("2.0", 8, 2)]),
    # spec-kit: a bracketed ID and extra labels.
    "speckit_variants": ("speckit",
        "- [ ] [T001] Bracketed ID\n"
        "- [x] [T002] [P1] [SETUP] [deps:T000] Labelled\n"
        "- [ ] T003 [P] Plain\n",
        [("T001", 1, 2), ("T002", 2, 2), ("T003", 3, 2)]),
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


def line_hash(data: bytes, n: int, col: int, off: int = 1) -> (str, str):
    line = re.split(b"\r\n|\r|\n", data)[n - 1]
    if n == 1 and line.startswith(BOM.encode()):
        line = line[3:]
    # An offset written as 1.0: the box character right after "[" in a box
    # wider than one character.
    wide, off = off != 1 or isinstance(off, float), int(off)
    assert line[col:col + 1] == b"[" and (wide or line[col + 2:col + 3] == b"]"), (n, line)
    open_line = line[:col + off] + b" " + line[col + off + 1:]
    return open_line.decode(), hashlib.sha256(open_line).hexdigest()


for name, (fmt, text, tasks) in VECTORS.items():
    data = text.encode()
    with open(name + ".md", "wb") as f:
        f.write(data)
    out = []
    for tid, n, col, *off in tasks:
        ol, h = line_hash(data, n, col, *off)
        out.append({"id": tid, "line": n, "open_line": ol, "line_hash": h})
    with open(name + ".expect.json", "w") as f:
        json.dump({"format": fmt, "tasks": out}, f, ensure_ascii=False, indent=2)
        f.write("\n")
