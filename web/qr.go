package web

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"

	"github.com/boombuler/barcode/qr"
)

// qrLevel is the error correction of the codes: Medium (15 %) survives a crease or a stain on paper and keeps
// the longest link (an encrypted OVI, about 140 characters with the base URL) at a size a phone reads easily.
const qrLevel = qr.M

// quietZone is the white margin, in modules, that ISO/IEC 18004 asks around a code; readers need it to find
// the finder patterns on a busy page.
const quietZone = 4

// qr answers the QR code of a record's verification link, only for a reference the page would show.
func (p *Page) qr(encode func(m [][]bool) ([]byte, error), contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if _, err := p.Service.PublicRecord(r.Context(), id); err != nil {
			p.fail(w, r, err)
			return
		}
		m, err := qrMatrix(p.Service.VerificationLink(id))
		if err == nil {
			var b []byte
			if b, err = encode(m); err == nil {
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

// qrMatrix encodes a link with boombuler/barcode (maintained, pure Go) and returns its modules, quiet zone
// included: true is a dark module. Both renderings below draw this one matrix.
func qrMatrix(link string) ([][]bool, error) {
	code, err := qr.Encode(link, qrLevel, qr.Auto)
	if err != nil {
		return nil, err
	}
	size := code.Bounds().Dx()
	n := size + 2*quietZone
	m := make([][]bool, n)
	for y := range m {
		m[y] = make([]bool, n)
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			if gray := color.GrayModel.Convert(code.At(x, y)).(color.Gray); gray.Y < 128 {
				m[y+quietZone][x+quietZone] = true
			}
		}
	}
	return m, nil
}

// qrPNG is the code as a PNG with 8 pixels per module, a size that prints sharply at any scale a document
// needs without resampling.
func qrPNG(m [][]bool) ([]byte, error) {
	const scale = 8
	img := image.NewPaletted(image.Rect(0, 0, len(m)*scale, len(m)*scale), color.Palette{color.White, color.Black})
	for y, row := range m {
		for x, dark := range row {
			if !dark {
				continue
			}
			for dy := 0; dy < scale; dy++ {
				for dx := 0; dx < scale; dx++ {
					img.SetColorIndex(x*scale+dx, y*scale+dy, 1)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// qrSVG writes the matrix as SVG. The maintained QR encoders for Go draw raster images only, and an SVG of a
// bit matrix is a few lines: one path of unit squares, horizontal runs merged, with crisp edges so that it
// scales without blur in a document.
func qrSVG(m [][]bool) ([]byte, error) {
	n := len(m)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges">`, n, n, n*8, n*8)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range m {
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
