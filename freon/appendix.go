package freon

import (
	"bufio"
	"strings"
)

// writeAppendix shows Generator.Appendix's entries after the report, where freon prints nothing:
// on Out after the console report, following a blank line, or as INFO lines of LoggerDNEchoNotes
// from the report thread, an entry's first line as the message and the others verbatim after it
// (as log4j prints a stack trace), so a table stays aligned.
func (g Generator) writeAppendix(res *Report) error {
	if g.Appendix == nil {
		return nil
	}
	entries := g.Appendix(res)
	if len(entries) == 0 {
		return nil
	}
	if g.Interactive {
		bw := bufio.NewWriter(g.Out)
		bw.WriteString("\n")
		for _, e := range entries {
			bw.WriteString(e + "\n")
		}
		return bw.Flush()
	}
	for _, e := range entries {
		lines := strings.Split(e, "\n")
		if err := g.Log.Log(ThreadReport, LevelInfo, LoggerDNEchoNotes, lines[0], lines[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// writeOptionList prints Generator.OptionList as freon's --verbose does after its report
// (BaseFreonGenerator.printOption): "\nOption:" and then each name=value, println'd on Out after
// the console report or each an INFO line of freon.BaseFreonGenerator from the report thread, the
// first message starting with its newline as log4j prints it.
func (g Generator) writeOptionList() error {
	if g.OptionList == nil {
		return nil
	}
	lines := append([]string{"\nOption:"}, g.OptionList...)
	if g.Interactive {
		bw := bufio.NewWriter(g.Out)
		for _, l := range lines {
			bw.WriteString(l + "\n")
		}
		return bw.Flush()
	}
	for _, l := range lines {
		if err := g.Log.Log(ThreadReport, LevelInfo, LoggerBaseFreon, l); err != nil {
			return err
		}
	}
	return nil
}
