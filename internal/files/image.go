package files

import (
	"bytes"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// maxHeaderBytes bounds how much of an image is kept to read its header. A
// png, gif or webp header is in the first few dozen bytes; a jpeg's frame
// header follows its metadata segments (EXIF, ICC profiles, XMP), which can
// run to hundreds of KiB.
const maxHeaderBytes = 1 << 20

// firstTry is the prefix length at which the header is first read.
const firstTry = 512

// dimensions reads an image's width and height from the bytes written to
// it, as they stream past, keeping at most maxHeaderBytes. It tries to read
// the header at growing prefix lengths and stops keeping bytes once the
// header has been read or cannot be.
type dimensions struct {
	decode func(io.Reader) (image.Config, error)
	buf    []byte
	next   int  // prefix length of the next try
	done   bool // header read, or given up
	width  int
	height int
}

// newDimensions returns a dimensions reader for content type ct, or nil when
// ct is not an image type whose size is recorded.
func newDimensions(ct string) *dimensions {
	var dec func(io.Reader) (image.Config, error)
	switch ct {
	case "image/png":
		dec = png.DecodeConfig
	case "image/jpeg":
		dec = jpeg.DecodeConfig
	case "image/gif":
		dec = gif.DecodeConfig
	case "image/webp":
		dec = webp.DecodeConfig
	default:
		return nil
	}
	return &dimensions{decode: dec, next: firstTry}
}

// Write keeps p's bytes up to maxHeaderBytes and tries the header when
// enough have come. It never fails.
func (d *dimensions) Write(p []byte) (int, error) {
	if d.done {
		return len(p), nil
	}
	keep := p[:min(len(p), maxHeaderBytes-len(d.buf))]
	if need := len(d.buf) + len(keep); need > cap(d.buf) {
		// Grow to the next try length at once, so the buffer never holds
		// more than twice what it needs and never more than maxHeaderBytes.
		nb := make([]byte, len(d.buf), min(max(need, d.next), maxHeaderBytes))
		copy(nb, d.buf)
		d.buf = nb
	}
	d.buf = append(d.buf, keep...)
	if len(d.buf) >= d.next || len(d.buf) == maxHeaderBytes {
		d.try(false)
	}
	return len(p), nil
}

// finish makes the last try on whatever was kept, at the end of the file.
func (d *dimensions) finish() {
	if !d.done {
		d.try(true)
	}
}

func (d *dimensions) try(last bool) {
	cfg, err := d.decode(bytes.NewReader(d.buf))
	switch {
	case err == nil:
		d.width, d.height = cfg.Width, cfg.Height
		d.done = true
	case last || len(d.buf) >= maxHeaderBytes ||
		!(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		// Not an image of this kind, or the header lies beyond what is kept.
		d.done = true
	default:
		d.next = min(max(d.next, len(d.buf))*4, maxHeaderBytes)
	}
	if d.done {
		d.buf = nil
	}
}
