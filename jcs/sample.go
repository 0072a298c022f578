package jcs

import "strconv"

// Sample returns a JSON object of at least size bytes (a little more, up to one record), the same bytes on
// every call and every machine. It exists so that this package's benchmarks and `sealbench` measure
// canonicalizers on one shared input shaped like the data seald hashes: records with unsorted member names,
// text in several scripts with escapes and surrogate pairs, integers, decimals, full-precision doubles and
// exponents, nested objects and arrays, and the white space of a lightly formatted document.
func Sample(size int) []byte {
	g := sampler{state: 0x5EA1D5A3B1E5EED5}
	b := make([]byte, 0, size+1024)
	b = append(b, "{\"schema\": \"seald.sample/v1\", \"generated_by\": \"jcs.Sample\", \"records\": [\n"...)
	for i := 0; ; i++ {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = g.record(b, i)
		if len(b)+3 >= size {
			break
		}
	}
	b = append(b, "\n]}"...)
	return b
}

// sampler is a splitmix64 generator: tiny, and fixed forever, unlike math/rand's streams.
type sampler struct{ state uint64 }

func (g *sampler) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func (g *sampler) intn(n int) int { return int(g.next() % uint64(n)) }

// Texts as they appear inside the JSON, escapes included.
var sampleTexts = []string{
	`Zürich Hauptbahnhof`,
	`København`,
	`東京都千代田区`,
	`Ελληνική Δημοκρατία`,
	`Grinning \ud83d\ude00 face`,
	`naïve café`,
	`line one\nline two`,
	`she said \"yes\"`,
	`tab\tseparated\tvalues`,
	`path\/to\/file`,
	`price: 100 \u20ac`,
	`Ünïcödé \u00e9t\u00e9 😀🚀`,
	`plain ascii text that goes on for a while, as free text fields do`,
	`مرحبا بالعالم`,
	`control \u0001 char`,
	`Привет, мир`,
}

var sampleTags = []string{`"alpha"`, `"beta"`, `"gamma"`, `"δέλτα"`, `"epsilon"`, `"\u20ac"`, `"zeta"`, `"ηta"`}

func (g *sampler) text(b []byte) []byte {
	b = append(b, '"')
	b = append(b, sampleTexts[g.intn(len(sampleTexts))]...)
	return append(b, '"')
}

func (g *sampler) record(b []byte, i int) []byte {
	b = append(b, `{"name": `...)
	b = g.text(b)
	b = append(b, `, "id": `...)
	b = strconv.AppendInt(b, int64(i)*7919+int64(g.intn(1000)), 10)
	b = append(b, `, "amount": `...)
	b = strconv.AppendInt(b, int64(g.intn(100000)), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(10+g.intn(90)), 10)
	b = append(b, `, "ratio": `...)
	b = strconv.AppendFloat(b, float64(g.next()>>11)/(1<<53), 'g', -1, 64)
	b = append(b, `, "active": `...)
	if g.intn(2) == 0 {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `, "note": null, "Émetteur": `...)
	b = g.text(b)
	b = append(b, `, "tags": [`...)
	for j, n := 0, 1+g.intn(4); j < n; j++ {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = append(b, sampleTags[g.intn(len(sampleTags))]...)
	}
	b = append(b, `], "address": {"street": `...)
	b = g.text(b)
	b = append(b, `, "city": `...)
	b = g.text(b)
	b = append(b, `, "zip": "`...)
	b = strconv.AppendInt(b, int64(10000+g.intn(90000)), 10)
	b = append(b, `", "geo": {"lon": `...)
	b = strconv.AppendFloat(b, float64(int64(g.next()>>11)-1<<52)/(1<<52)*180, 'f', 6, 64)
	b = append(b, `, "lat": `...)
	b = strconv.AppendFloat(b, float64(int64(g.next()>>11)-1<<52)/(1<<52)*90, 'f', 6, 64)
	b = append(b, `}}, "measurements": [`...)
	for j, n := 0, 2+g.intn(4); j < n; j++ {
		if j > 0 {
			b = append(b, ", "...)
		}
		switch g.intn(4) {
		case 0:
			b = strconv.AppendFloat(b, float64(g.next()>>11)*1e-30, 'e', -1, 64)
		case 1:
			b = strconv.AppendFloat(b, float64(g.next()>>20)*1e12, 'g', -1, 64)
		case 2:
			b = strconv.AppendInt(b, int64(g.next()>>12)-1<<51, 10)
		default:
			b = append(b, "1.50"...)
		}
	}
	b = append(b, `], "history": [{"status": "ACTIVE", "at": 1700000000000}, {"at": `...)
	b = strconv.AppendInt(b, 1700000000000+int64(g.intn(1e9)), 10)
	b = append(b, `, "status": "SUSPENDED", "by": `...)
	b = g.text(b)
	b = append(b, `}], "version": 1.0, "checksum": "`...)
	b = strconv.AppendUint(b, g.next(), 16)
	return append(b, `"}`...)
}
