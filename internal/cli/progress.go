package cli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"formation/pipeline"
)

// progressDisplay draws one bar per stage (and unit) on a terminal: the
// count of real units, with a percentage once the total is known. A bar
// never goes backwards: a lower count than one already shown is ignored,
// and the total is set once, when it becomes known.
type progressDisplay struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	key   string // stage and unit of the current bar
	done  int64
	total int64
}

// progressFor returns the pipeline's progress hook for this command: nil
// (no bar) unless stderr is a terminal and neither --json, --quiet nor
// CI=true is in force.
func progressFor(c *cli.Context, io IO) (func(pipeline.Progress), func()) {
	f, ok := io.Stderr.(*os.File)
	if quiet(c) || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	d := &progressDisplay{w: f}
	return d.update, d.finish
}

func (d *progressDisplay) update(p pipeline.Progress) {
	key := p.Stage + ": " + p.Unit
	if key != d.key {
		d.finish()
		d.key, d.done, d.total = key, 0, 0
		max := int64(-1)
		if p.Total > 0 {
			max, d.total = p.Total, p.Total
		}
		d.bar = progressbar.NewOptions64(max, progressbar.OptionSetWriter(d.w), progressbar.OptionSetDescription(key),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(65*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	if d.total == 0 && p.Total > 0 {
		d.total = p.Total
		d.bar.ChangeMax64(p.Total)
	}
	if p.Done > d.done {
		d.done = p.Done
		_ = d.bar.Set64(p.Done)
	}
}

func (d *progressDisplay) finish() {
	if d.bar != nil {
		_ = d.bar.Finish()
		d.bar = nil
	}
}
