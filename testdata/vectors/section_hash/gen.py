#!/usr/bin/env python3
"""Writes the section_hash test vectors: NAME/ is a repository tree (exact bytes)
holding one unit; NAME/expect.json lists tasks of its tasks file with the section
name and section_hash SPEC §4 "spec" gives them (null when spec is null).

The expected text of each section is taken here from line ranges chosen by hand
(1-based, inclusive) of the spec documents, independently of the Go code: the
document is split as Rust's str::lines (on b"\\n", one b"\\r" dropped, no empty last
line after a final b"\\n"; a UTF-8 BOM at the start removed), the ranges' lines are
joined with b"\\n" (ranges joined with b"\\n" too), sha256, lowercase hex.
Run: python3 gen.py (from this directory).
"""
import hashlib, json, os

BOM = "\ufeff"


def derived(title: str) -> str:
    """The ID of a task line without a written ID: "h-" + 12 hex of sha256(title)."""
    return "h-" + hashlib.sha256(title.encode()).hexdigest()[:12]

# Headings inside HTML comments are not headings: they neither open a user story
# nor end one (taskproof's most secure reading of SPEC §4).
SPECKIT_COMMENTS = ("# Feature Specification\n"                   # 1
    "\n"                                                        # 2
    "<!--\n"                                                    # 3
    "### User Story 1 - Example from the template (Priority: P1)\n"  # 4
    "example text\n"                                            # 5
    "-->\n"                                                     # 6
    "\n"                                                        # 7
    "### User Story 1 - Real story (Priority: P1)\n"            # 8
    "real text\n"                                               # 9
    "<!--\n"                                                    # 10
    "## Commented-out heading ends nothing\n"                   # 11
    "-->\n"                                                     # 12
    "more real text\n"                                          # 13
    "\n"                                                        # 14
    "### User Story 2 - Second\n"                               # 15
    "second <!-- opens a comment\n"                             # 16
    "## Hidden heading\n"                                       # 17
    "-->\n"                                                     # 18
    "## Requirements\n"                                         # 19
    "req\n")                                                    # 20

SPECKIT_SPEC = (BOM + "# Feature Specification: Config\r\n"   # 1
    "\r\n"                                                   # 2
    "## User Scenarios & Testing *(mandatory)*\r\n"          # 3
    "\r\n"                                                   # 4
    "### User Story 10 - Bulk import (Priority: P3)\r\n"     # 5
    "ten\r\n"                                                # 6
    "\r\n"                                                   # 7
    "### User Story 1 - Load config (Priority: P1)\r\n"      # 8
    "As a user I load a config.\r\n"                         # 9
    "\r\n"                                                   # 10
    "```markdown\r\n"                                        # 11
    "## Not a heading inside a fence\r\n"                    # 12
    "```\r\n"                                                # 13
    "#### Acceptance Scenarios\r\n"                          # 14
    "1. **Given** a file, **When** loaded, **Then** ok\r\n"  # 15
    "\r\n"                                                   # 16
    "\r\n"                                                   # 17
    "### User Story 2 - 設定の保存 (Priority: P2)\r\n"       # 18
    "日本語の説明\r\n"                                        # 19
    "\r\n"                                                   # 20
    "## Requirements *(mandatory)*\r\n"                      # 21
    "- **FR-001**: System MUST load config\r\n")             # 22

OPENSPEC_A = ("## ADDED Requirements\n"                      # 1
    "\n"                                                     # 2
    "### Requirement: Run Lock File\n"                       # 3
    "The system SHALL hold a lock.\n"                        # 4
    "\n"                                                     # 5
    "#### Scenario: No lock file exists\n"                   # 6
    "- **WHEN** a run starts\n"                              # 7
    "- **THEN** a lock is created\n"                         # 8
    "\n"                                                     # 9
    "### Requirement: Log Clean Process\n"                   # 10
    "The system SHALL move logs.\n"                          # 11
    "## REMOVED Requirements\n"                              # 12
    "### Requirement: Log Rotation\n"                        # 13
    "Removed.")                                              # 14 (no final newline)
OPENSPEC_B = ("## MODIFIED Requirements\n"                   # 1
    "### Requirement: Log   Clean   Process   Extended\n"    # 2
    "The longer name wins.\n"                                # 3
    "# End\n")                                               # 4

KIRO_REQS = ("# 要件定義書\n"                                  # 1
    "\n"                                                     # 2
    "## Requirements\n"                                      # 3
    "\n"                                                     # 4
    "### Requirement 1\n"                                    # 5
    "\n"                                                     # 6
    "**User Story:** 開発者として、タスクを作成したい\n"       # 7
    "\n"                                                     # 8
    "#### Acceptance Criteria\n"                             # 9
    "\n"                                                     # 10
    "1. WHEN タスクを作成する THEN システムは ID を返す SHALL\n"  # 11
    "\n"                                                     # 12
    "### Requirement 2\n"                                    # 13
    "二番目\n"                                                # 14
    "### Requirement 12\n"                                   # 15
    "十二番目\n"                                              # 16
    "\n"                                                     # 17
    "## 用語集\n"                                             # 18
    "終わり\n")                                               # 19

VECTORS = {
    "speckit_crlf": {
        "files": {
            "specs/001-config/spec.md": SPECKIT_SPEC,
            "specs/001-config/tasks.md": "- [X] T001 [US1] Load\r\n- [x] T002 [P] [US2] Save\r\n"
                                         "- [ ] T003 [US10] Import\r\n- [ ] T004 [P] No story\r\n",
        },
        "tasks_path": "specs/001-config/tasks.md",
        "expect": [
            ("T001", "US1", [("specs/001-config/spec.md", 8, 17)]),
            ("T002", "US2", [("specs/001-config/spec.md", 18, 20)]),
            ("T003", "US10", [("specs/001-config/spec.md", 5, 7)]),
            ("T004", None, []),
        ],
    },
    "openspec_requirements": {
        "files": {
            "openspec/changes/archive/2026-01-23-locks/specs/run/spec.md": OPENSPEC_A,
            "openspec/changes/archive/2026-01-23-locks/specs/logs/spec.md": OPENSPEC_B,
            "openspec/changes/archive/2026-01-23-locks/tasks.md":
                "# Tasks\n\n## 1. Run lock file\n- [x] 1.1 Add acquireLock\n- [x] 1.2 Log clean process extended: move logs\n"
                "## 2. Docs\n- [ ] 2.1 Describe the log clean process\n- [ ] 2.2 Update README\n- [ ] 2.3 Note the log rotation removal\n",
        },
        "tasks_path": "openspec/changes/archive/2026-01-23-locks/tasks.md",
        "expect": [
            # group "1. Run lock file" names "Run Lock File"
            ("1.1", "Run Lock File", [("openspec/changes/archive/2026-01-23-locks/specs/run/spec.md", 3, 9)]),
            # title names both "Log Clean Process" and the longer "Log Clean Process Extended"
            ("1.2", "Log   Clean   Process   Extended", [("openspec/changes/archive/2026-01-23-locks/specs/logs/spec.md", 2, 3)]),
            ("2.1", "Log Clean Process", [("openspec/changes/archive/2026-01-23-locks/specs/run/spec.md", 10, 11)]),
            ("2.2", None, []),
            ("2.3", "Log Rotation", [("openspec/changes/archive/2026-01-23-locks/specs/run/spec.md", 13, 14)]),
        ],
    },
    "kiro_inherited": {
        "files": {
            ".kiro/specs/task-mcp/requirements.md": KIRO_REQS,
            ".kiro/specs/task-mcp/tasks.md":
                "# 実装計画\n\n"
                "- [x] 1. データ層の実装\n  - 説明\n  - _Requirements: 2.1, 1.2, 2.3_\n\n"
                "  - [x] 1.1 型定義（親から継承）\n"
                "  - [-] 1.2 自身の要件\n    - _Requirements: 12.1_\n"
                "- [ ] 1.3 フラットな子タスク（IDで親を継承）\n"
                "- [ ] 2. 品質チェック\n  - _Requirements: コード品質保証_\n"
                "- [ ] 3. 要件表記\n  - _Requirements: Requirement 1, 2_\n",
        },
        "tasks_path": ".kiro/specs/task-mcp/tasks.md",
        "expect": [
            ("1", "2,1", [(".kiro/specs/task-mcp/requirements.md", 13, 14), (".kiro/specs/task-mcp/requirements.md", 5, 12)]),
            ("1.1", "2,1", [(".kiro/specs/task-mcp/requirements.md", 13, 14), (".kiro/specs/task-mcp/requirements.md", 5, 12)]),
            ("1.2", "12", [(".kiro/specs/task-mcp/requirements.md", 15, 17)]),
            ("1.3", "2,1", [(".kiro/specs/task-mcp/requirements.md", 13, 14), (".kiro/specs/task-mcp/requirements.md", 5, 12)]),
            ("2", None, []),
            ("3", "1,2", [(".kiro/specs/task-mcp/requirements.md", 5, 12), (".kiro/specs/task-mcp/requirements.md", 13, 14)]),
        ],
    },
    "speckit_comment_headings": {
        "files": {
            "specs/002-comments/spec.md": SPECKIT_COMMENTS,
            "specs/002-comments/tasks.md": "- [x] T001 [US1] Real\n- [ ] [P] [US2] Second without ID\n"
                                           "<!--\n## Phase 2\n-->\n- [ ] T003 No story\n",
        },
        "tasks_path": "specs/002-comments/tasks.md",
        "expect": [
            ("T001", "US1", [("specs/002-comments/spec.md", 8, 14)]),
            (derived("Second without ID"), "US2", [("specs/002-comments/spec.md", 15, 18)]),
            ("T003", None, []),
        ],
    },
    "kiro_bugfix": {
        "files": {
            ".kiro/specs/fix-crash/bugfix.md": "# Bugfix\n\n### Requirement 1\nThe crash SHALL not happen.\n### Requirement 2\nsecond\n",
            ".kiro/specs/fix-crash/tasks.md": "- [x] 1. Fix the crash\n  - _Requirements: 1.1_\n",
        },
        "tasks_path": ".kiro/specs/fix-crash/tasks.md",
        "expect": [
            ("1", "1", [(".kiro/specs/fix-crash/bugfix.md", 3, 4)]),
        ],
    },
    # BMAD: "(AC: …)" cites the story's own acceptance criteria, in the
    # tasks file itself: spec null, cited or not.
    "bmad_no_section": {
        "files": {
            "docs/sprint-artifacts/1-1-init.md": (
                "# Story 1.1: Init\n"                                   # 1
                "\n"                                                    # 2
                "Status: done\n"                                        # 3
                "\n"                                                    # 4
                "## Acceptance Criteria\n"                              # 5
                "\n"                                                    # 6
                "1. **AC-1.1.1: Structure**\n"                          # 7
                "   - Given a clone\n"                                  # 8
                "   ### Details, a sub-heading\n"                      # 9
                "```\n"                                                 # 10
                "## Fenced, not a heading\n"                            # 11
                "```\n"                                                 # 12
                "\n"                                                    # 13
                "## Tasks / Subtasks\n"                                 # 14
                "\n"                                                    # 15
                "- [x] **Task 1: Initialize** (AC: 1.1.1, 1.1.2)\n"     # 16
                "  - [x] Create root package.json\n"                    # 17
                "- [ ] Review the docs\n"),                             # 18
        },
        "tasks_path": "docs/sprint-artifacts/1-1-init.md",
        "expect": [
            ("1", None, []),
            ("1." + derived("Create root package.json"), None, []),
            (derived("Review the docs"), None, []),
        ],
    },
    # cc-sdd reads and hashes its requirements as Kiro does; "(P)" and
    # "_Boundary:_" change nothing.
    "ccsdd_requirements": {
        "format": "cc-sdd",
        "files": {
            ".kiro/specs/evm/requirements.md": (
                "# Requirements\n"                  # 1
                "\n"                                # 2
                "### Requirement 1: 計算\n"          # 3
                "EVM を計算する\n"                    # 4
                "### Requirement 2: 出力\n"          # 5
                "CSV を出力する\n"),                  # 6
            ".kiro/specs/evm/tasks.md": (
                "- [x] 1. (P) 計算\n"
                "  - _Requirements: 2.1, 1.3_\n"
                "  - _Boundary: EvmCalculator_\n"
                "- [ ] 2. 出力 (P)\n"),
        },
        "tasks_path": ".kiro/specs/evm/tasks.md",
        "expect": [
            ("1", "2,1", [(".kiro/specs/evm/requirements.md", 5, 6), (".kiro/specs/evm/requirements.md", 3, 4)]),
            ("2", None, []),
        ],
    },
    # Requirements written in the spec's language or with bare numbers (cc-sdd's
    # template allows "要件 1", "1. Overview"): read when the document has no
    # "### Requirement N" heading.
    "ccsdd_localized_requirements": {
        "files": {
            ".kiro/specs/ja/requirements.md": (
                "# 要件定義書\n"                      # 1
                "\n"                                # 2
                "### 要件 1: 計算（#166）\n"          # 3
                "#### 受入基準\n"                     # 4
                "1. 計算する\n"                       # 5
                "### 要件2: 出力\n"                   # 6
                "出力する\n"                          # 7
                "### 要件 10: 十\n"                   # 8
                "十\n"),                              # 9
            ".kiro/specs/ja/tasks.md": (
                "- [x] 1. (P) 計算\n"
                "  - _Requirements: 1.1, 2.3, 10.1_\n"),
        },
        "tasks_path": ".kiro/specs/ja/tasks.md",
        "expect": [
            ("1", "1,2,10", [(".kiro/specs/ja/requirements.md", 3, 5), (".kiro/specs/ja/requirements.md", 6, 7),
                             (".kiro/specs/ja/requirements.md", 8, 9)]),
        ],
    },
    # spec-workflow-mcp cites requirements as Kiro does (no bugfix.md).
    "specworkflow_requirements": {
        "files": {
            ".spec-workflow/specs/ui/requirements.md": (
                "# Requirements\n"                          # 1
                "\n"                                        # 2
                "### Requirement 1 — 定義の登録\n"            # 3
                "#### Acceptance Criteria — Requirement 1\n" # 4
                "1. WHEN x THEN y\n"                          # 5
                "### Requirement 10\n"                       # 6
                "ten\n"),                                    # 7
            ".spec-workflow/specs/ui/tasks.md": (
                "- [x] 1. Register\n"
                "  - _Requirements: 1.1, 10_\n"
                "  - _Leverage: api.ts_\n"
                "- [-] 2. Nothing cited\n"),
        },
        "tasks_path": ".spec-workflow/specs/ui/tasks.md",
        "expect": [
            ("1", "1,10", [(".spec-workflow/specs/ui/requirements.md", 3, 5), (".spec-workflow/specs/ui/requirements.md", 6, 7)]),
            ("2", None, []),
        ],
    },
    # Agent OS tasks cite no section.
    "agentos_none": {
        "files": {
            ".agent-os/specs/2025-09-06-x/spec.md": "# Spec\n\n## Spec Scope\n\n1. **Client**\n",
            ".agent-os/specs/2025-09-06-x/tasks.md": "- [x] 1. Implement the client\n  - [x] 1.1 Write tests\n",
        },
        "tasks_path": ".agent-os/specs/2025-09-06-x/tasks.md",
        "expect": [
            ("1", None, []),
            ("1.1", None, []),
        ],
    },
}


def rust_lines(data: bytes):
    if data.startswith(BOM.encode()):
        data = data[3:]
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [l[:-1] if l.endswith(b"\r") else l for l in lines]


for name, v in VECTORS.items():
    for path, text in v["files"].items():
        p = os.path.join(name, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(text.encode())
    out = []
    for tid, section, ranges in v["expect"]:
        if section is None:
            out.append({"id": tid, "section": None, "section_hash": None})
            continue
        parts = []
        for path, a, b in ranges:
            parts.extend(rust_lines(v["files"][path].encode())[a - 1:b])
        text = b"\n".join(parts)
        out.append({"id": tid, "section": section, "section_hash": hashlib.sha256(text).hexdigest(),
                    "lines": ["%s:%d-%d" % r for r in ranges]})
    with open(os.path.join(name, "expect.json"), "w") as f:
        doc = {"tasks_path": v["tasks_path"], "tasks": out}
        if "format" in v:
            doc["format"] = v["format"]
        json.dump(doc, f, ensure_ascii=False, indent=2)
        f.write("\n")
