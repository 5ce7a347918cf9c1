package store

import "testing"

func TestCountMarkdown(t *testing.T) {
	text := "# Title\n## Part\nSome **bold** and __also__ words.\n\n- one\n* two\n  + three\n1. first\n12. second\n" +
		"```\n# not a header\n- not a list\n**not bold**\n```\n###no space\n**open\nclosed**\n"
	c := CountMarkdown(text)
	h, l, b := c.Sums()
	if c.Headers != [6]int{1, 1, 0, 0, 0, 0} || h != 2 {
		t.Errorf("headers %v", c.Headers)
	}
	if c.Unordered != 3 || c.Ordered != 2 || l != 5 {
		t.Errorf("lists: %d unordered, %d ordered", c.Unordered, c.Ordered)
	}
	if c.BoldStar != 1 || c.BoldUnders != 1 || b != 2 {
		t.Errorf("bold: %d **, %d __", c.BoldStar, c.BoldUnders)
	}
	if n := CountWords("  two\twords\n"); n != 2 {
		t.Errorf("words %d", n)
	}
}
