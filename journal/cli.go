package journal

import (
	"bufio"
	"io"
	"iter"
	"strconv"
)

// Cat writes records to w as JSON lines, each as AppendCatLine writes it,
// the body of `jobgen journal cat`. It prints facts of any vocabulary. An
// error ends the output, after the records before it were written; for a
// file, damage names its offset. The records are a file's,
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
		line = AppendCatLine(line[:0], rec)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AppendCatLine appends rec to dst as one line of Cat's output,
//
//	{"pos":"MAJOR.MINOR","stream":"STREAM","seq":SEQ,"id":"ID","fact":FACT}
//
// FACT being the payload byte for byte and the id's field there only when
// the record has one. The position is the string Position.String writes
// and ParsePosition reads back, whatever the store: a file's record 17 is
// "0.17", a PostgreSQL position "752.1". One JSON type for every backend,
// so a script reads one, and hands it back to cat's --after as printed
// (decision 0092).
func AppendCatLine(dst []byte, rec Record) []byte {
	dst = append(dst, `{"pos":"`...)
	dst = strconv.AppendUint(dst, rec.Pos.Major, 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, rec.Pos.Minor, 10)
	dst = append(dst, `","stream":"`...)
	dst = appendEscaped(dst, string(rec.Stream))
	dst = append(dst, `","seq":`...)
	dst = strconv.AppendUint(dst, rec.Seq, 10)
	if rec.ID != "" {
		dst = append(dst, `,"id":"`...)
		dst = appendEscaped(dst, rec.ID)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"fact":`...)
	dst = append(dst, rec.Payload...)
	return append(dst, "}\n"...)
}
