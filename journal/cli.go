package journal

import (
	"bufio"
	"io"
	"iter"
	"strconv"
)

// Cat writes records to w as JSON lines,
//
//	{"pos":POS,"stream":"STREAM","seq":SEQ,"id":"ID","fact":FACT}
//
// FACT being the payload byte for byte and the id's field there only when the
// record has one; POS is a number when the position's Major is zero (always,
// for a file) and the string "MAJOR.MINOR" otherwise. It prints facts of any
// vocabulary. An error ends the output, after the records before it were
// written; for a file, damage names its offset. The records are a file's,
// Cat(w, ReadFile(path)), or a store's, Cat(w, store.ReadAll(ctx, journal.Position{})).
func Cat(w io.Writer, records iter.Seq2[Record, error]) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for rec, err := range records {
		if err != nil {
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
			return err
		}
		line = append(line[:0], `{"pos":`...)
		if rec.Pos.Major == 0 {
			line = strconv.AppendUint(line, rec.Pos.Minor, 10)
		} else {
			line = strconv.AppendQuote(line, rec.Pos.String())
		}
		line = append(line, `,"stream":"`...)
		line = appendEscaped(line, string(rec.Stream))
		line = append(line, `","seq":`...)
		line = strconv.AppendUint(line, rec.Seq, 10)
		if rec.ID != "" {
			line = append(line, `,"id":"`...)
			line = appendEscaped(line, rec.ID)
			line = append(line, '"')
		}
		line = append(line, `,"fact":`...)
		line = append(line, rec.Payload...)
		line = append(line, "}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
