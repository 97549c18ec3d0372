package specfmt

import (
	"bytes"
	"sort"

	"github.com/taskproof/taskproof/predicate/gfm"
	"github.com/taskproof/taskproof/predicate/native"
)

// taskLines are a tasks file's lines as both readings see them: GitHub's
// (read), and, for the boxes the format's own tool reads, which readings see
// them and, for a box wider than one character, where its "]" is. Most files
// have no box only the tool reads: their lines are GitHub's alone, and no
// per-line record is made.
type taskLines struct {
	read []gfm.Line
	// readings and ends hold the lines whose box the tool reads (ReadByBoth
	// or ReadByTool) and the "]" of each wider box, by line index.
	readings map[int]Reading
	ends     map[int]int
	// toolOnly: some box is the tool's alone.
	toolOnly bool
}

// reading is which readings see line i's box.
func (l *taskLines) reading(i int) Reading { return l.readings[i] }

// end is the offset of line i's box's "]" when the box is wider than one
// character, else 0.
func (l *taskLines) end(i int) int { return l.ends[i] }

// A format whose own tool reads its tasks file — OpenSpec's task counter,
// spec-workflow-mcp's task parser — has a second reading beside GitHub's:
// every box either reading sees is a task, and a box either sees done is
// ticked (docs/format.md#the-formats-own-readings). The tool's reading is a
// line reader blind to Markdown (package native), so it sees boxes GitHub
// hides (in code, in comments, padded, with the marker glued on); mergeNative
// adds them to GitHub's reading of the file's lines.

// nativeReader is the format's own reading, nil when it has none beside
// GitHub's (Kiro, cc-sdd, BMAD and Agent OS are read by agents following
// GFM's task lists). spec-kit's is an agent's following its prompts, which
// read the raw line (native.SpecKitAgent).
func nativeReader(f Format) native.Reader {
	switch f {
	case OpenSpec:
		return native.OpenSpec
	case SpecWorkflow:
		return native.SpecWorkflow
	case Speckit:
		return native.SpecKitAgent
	}
	return nil
}

// nativeBoxes is the format's own reading of content (without its BOM).
func nativeBoxes(f Format, content []byte) []native.Box {
	read := nativeReader(f)
	if read == nil {
		return nil
	}
	return read(bytes.TrimPrefix(content, []byte(bom)))
}

// mergeNative adds boxes, the format's own reading of content, to lines,
// GitHub's reading of it. A box on a line where GitHub has the same box is
// read by both; one where GitHub has none becomes the line's task, read by
// the tool alone (also on a line GitHub puts in code or a comment). A box
// the union cannot read as one task line fails with a *LineError
// (ErrUnreadableBox): its brackets span lines (a lone "\r" inside it, which
// the tool does not end lines at), or GitHub has another box on its line.
// A box the tool reads as unfinished that holds no ASCII character but "x"
// ("[]", "[xx]", "[\u3000]") is no task: it has no character to read as the
// box (docs/format.md#the-formats-own-readings).
func mergeNative(lines *taskLines, content []byte, boxes []native.Box) error {
	if len(boxes) == 0 {
		return nil
	}
	lines.readings = make(map[int]Reading, len(boxes))
	src := bytes.TrimPrefix(content, []byte(bom))
	starts, ends := gfm.LineBounds(src)
	for _, b := range boxes {
		i := sort.Search(len(starts), func(k int) bool { return starts[k] > b.Open }) - 1
		if i < 0 || i >= len(lines.read) || b.Close >= ends[i] {
			return &LineError{Line: i + 1, Err: ErrUnreadableBox}
		}
		col, ok := nativeBoxCol(src, b)
		if !ok {
			continue
		}
		col -= starts[i]
		l := &lines.read[i]
		switch {
		case l.Box == col && b.Close == b.Open+2:
			lines.readings[i] = ReadByBoth
		case l.Box >= 0:
			return &LineError{Line: i + 1, Err: ErrUnreadableBox}
		default:
			l.Box, l.Hidden = col, false
			lines.readings[i], lines.toolOnly = ReadByTool, true
			if b.Close != b.Open+2 {
				if lines.ends == nil {
					lines.ends = map[int]int{}
				}
				lines.ends[i] = b.Close - starts[i]
			}
		}
	}
	return nil
}

// agentHidden keeps, of an agent's reading of a spec-kit tasks file
// (native.SpecKitAgent), the boxes it reads done that GitHub hides: on a line
// GitHub reads no box on (a lazy continuation, a paragraph, a comment, code),
// naming a task ID no box GitHub reads names and no earlier such box names.
// The agent's other boxes are GitHub's own tasks or open lines a user reads
// as no task (a template's example), and a task ID the file already gives a
// task is that task's, not a second one
// (docs/format.md#the-formats-own-readings).
func agentHidden(u Unit, read []gfm.Line, content []byte, boxes []native.Box) []native.Box {
	if len(boxes) == 0 {
		return nil
	}
	src := bytes.TrimPrefix(content, []byte(bom))
	starts, _ := gfm.LineBounds(src)
	line := func(b native.Box) int {
		return sort.Search(len(starts), func(k int) bool { return starts[k] > b.Open }) - 1
	}
	ids := map[string]bool{}
	for _, l := range read {
		if l.Box >= 0 {
			ids[parseTaskAt(u.Format, l.Text, l.Box, 0).ID] = true
		}
	}
	var out []native.Box
	for _, b := range boxes {
		i := line(b)
		if !b.Done || i < 0 || i >= len(read) || read[i].Box >= 0 {
			continue
		}
		t := parseTaskAt(u.Format, read[i].Text, b.Open+1-starts[i], 0)
		if t.Derived || ids[t.ID] {
			continue
		}
		ids[t.ID] = true
		out = append(out, b)
	}
	return out
}

// nativeBoxCol is the offset in src of the character read as box b's: its
// "x" or "X" when the tool reads it done, else its first ASCII character that
// is not "x" or "X"; ok is false when there is none.
func nativeBoxCol(src []byte, b native.Box) (int, bool) {
	inner := b.Inner(src)
	for k, c := range inner {
		isX := c == 'x' || c == 'X'
		if b.Done == isX && c < 0x80 {
			return b.Open + 1 + k, true
		}
	}
	return 0, false
}

// checkNative is the error mergeNative gives content for boxes, decided
// without GitHub's reading: a box whose brackets span lines.
func checkNative(content []byte, boxes []native.Box) error {
	if len(boxes) == 0 {
		return nil
	}
	src := bytes.TrimPrefix(content, []byte(bom))
	starts, ends := gfm.LineBounds(src)
	for _, b := range boxes {
		i := sort.Search(len(starts), func(k int) bool { return starts[k] > b.Open }) - 1
		if i < 0 || b.Close >= ends[i] {
			return &LineError{Line: i + 1, Err: ErrUnreadableBox}
		}
	}
	return nil
}
