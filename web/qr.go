package web

import (
	"bytes"
	"fmt"
	"net/http"

	qrcode "github.com/skip2/go-qrcode"
)

// qrLevel is the error correction of the codes: Medium (15 %) survives a crease or a stain on paper and keeps
// the longest link (an encrypted OVI, about 140 characters with the base URL) at a size a phone reads easily.
const qrLevel = qrcode.Medium

// qr answers the QR code of a record's verification link, only for a reference the page would show.
func (p *Page) qr(encode func(q *qrcode.QRCode) ([]byte, error), contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if _, err := p.Service.PublicRecord(r.Context(), id); err != nil {
			p.fail(w, r, err)
			return
		}
		q, err := qrcode.New(p.Service.VerificationLink(id), qrLevel)
		if err == nil {
			var b []byte
			if b, err = encode(q); err == nil {
				h := w.Header()
				h.Set("Content-Type", contentType)
				// The code depends only on the link, which never changes; a status change does not alter it.
				h.Set("Cache-Control", "public, max-age=86400")
				_, _ = w.Write(b)
				return
			}
		}
		p.fail(w, r, err)
	}
}

// qrPNG is the code as a PNG with 8 pixels per module, a size that prints sharply at any scale a document
// needs without resampling.
func qrPNG(q *qrcode.QRCode) ([]byte, error) { return q.PNG(-8) }

// qrSVG writes the library's bitmap (quiet zone included) as SVG. go-qrcode has no SVG output and the QR
// libraries that have one are less used or pull in image stacks; an SVG of a bit matrix is a few lines: one
// path of unit squares, horizontal runs merged, with crisp edges so that it scales without blur in a document.
func qrSVG(q *qrcode.QRCode) ([]byte, error) {
	bm := q.Bitmap()
	n := len(bm)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges">`, n, n, n*8, n*8)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range bm {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			start := x
			for x < len(row) && row[x] {
				x++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", start, y, x-start, x-start)
		}
	}
	b.WriteString(`"/></svg>`)
	return b.Bytes(), nil
}
