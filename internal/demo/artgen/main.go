// Command artgen writes the demo theme's illustrations (SVG mosaics of
// quarter circles and squares) into internal/demo/theme/images. They are
// generated, not drawn, so that the repository holds only their small
// text and this program, under the project's license:
//
//	go run ./internal/demo/artgen
//
// The output is deterministic (a fixed seed per image), so running it
// again changes nothing unless this file changed.
package main

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// palette is the theme's colours (assets/site.css).
var palette = struct{ night, teal, warm, sand, paper, mint, rose string }{
	"#14253a", "#0d5c63", "#a8431b", "#e0a458", "#f4efe6", "#9fd8d3", "#f3b08f",
}

type art struct {
	name       string
	cols, rows int
	cell       int
	seed       uint64
	bg         string
	colors     []string
}

// notice goes into every image, so that its license travels with it (a
// theme pull or a copy of one file).
const notice = "<!-- Tessera demo theme; made by internal/demo/artgen; MIT license, as the rest of Tessera. -->"

func main() {
	dir := filepath.Join("internal", "demo", "theme", "images")
	p := palette
	all := []art{
		{"hero.svg", 6, 5, 80, 35, p.night, []string{p.teal, p.warm, p.sand, p.paper, p.mint, p.rose}},
		{"cover-tiles.svg", 8, 4, 80, 7, p.teal, []string{p.night, p.sand, p.paper, p.mint, p.warm}},
		{"cover-arcs.svg", 8, 4, 80, 11, p.warm, []string{p.night, p.sand, p.paper, p.rose, p.teal}},
		{"cover-grid.svg", 8, 4, 80, 23, p.night, []string{p.teal, p.mint, p.sand, p.paper, p.warm}},
		{"members.svg", 4, 4, 80, 5, p.teal, []string{p.night, p.paper, p.mint, p.sand}},
	}
	for _, a := range all {
		if err := os.WriteFile(filepath.Join(dir, a.name), []byte(mosaic(a)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	for _, name := range []string{filepath.Join(dir, "logo.svg"), filepath.Join(dir, "..", "assets", "favicon.svg")} {
		if err := os.WriteFile(name, []byte(logo()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	for name, shape := range icons {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(icon(shape)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// mosaic lays a grid of tiles: each a square of one colour holding a
// quarter circle, a half circle, a circle or a smaller square of another.
func mosaic(a art) string {
	r := rand.New(rand.NewPCG(a.seed, 1))
	w, h, c := a.cols*a.cell, a.rows*a.cell, a.cell
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">`, w, h, w, h)
	b.WriteString(notice)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="%s"/>`, w, h, a.bg)
	pick := func(not string) string {
		for {
			if x := a.colors[r.IntN(len(a.colors))]; x != not {
				return x
			}
		}
	}
	for y := 0; y < a.rows; y++ {
		for x := 0; x < a.cols; x++ {
			x0, y0 := x*c, y*c
			if r.IntN(7) == 0 {
				continue // a gap shows the background
			}
			base := pick("")
			fg := pick(base)
			// One pixel wider and taller than the cell, so that no hairline
			// of the background shows between neighbours.
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, x0, y0, c+1, c+1, base)
			switch r.IntN(5) {
			case 0, 1: // a quarter circle from one corner
				cx, cy := x0+c*r.IntN(2), y0+c*r.IntN(2)
				sx, sy := cx, y0+c-(cy-y0)
				ex, ey := x0+c-(cx-x0), cy
				sweep := 0
				if (cx == x0) == (cy == y0) {
					sweep = 1
				}
				fmt.Fprintf(&b, `<path d="M%d %dL%d %dA%d %d 0 0 %d %d %dZ" fill="%s"/>`, cx, cy, sx, sy, c, c, sweep, ex, ey, fg)
			case 2: // a half circle on one side
				if r.IntN(2) == 0 {
					fmt.Fprintf(&b, `<path d="M%d %dA%d %d 0 0 1 %d %dZ" fill="%s"/>`, x0, y0+c, c/2, c/2, x0+c, y0+c, fg)
				} else {
					fmt.Fprintf(&b, `<path d="M%d %dA%d %d 0 0 0 %d %dZ" fill="%s"/>`, x0, y0, c/2, c/2, x0+c, y0, fg)
				}
			case 3: // a circle
				fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="%s"/>`, x0+c/2, y0+c/2, c*3/10, fg)
			case 4: // a diamond
				fmt.Fprintf(&b, `<path d="M%d %dL%d %dL%d %dL%d %dZ" fill="%s"/>`, x0+c/2, y0+c/8, x0+c*7/8, y0+c/2, x0+c/2, y0+c*7/8, x0+c/8, y0+c/2, fg)
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// logo is the brand mark: four tiles, one of them a quarter circle.
func logo() string {
	p := palette
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">` + notice +
		`<rect width="15" height="15" rx="2" fill="` + p.night + `"/>` +
		`<rect x="17" width="15" height="15" rx="2" fill="` + p.teal + `"/>` +
		`<rect y="17" width="15" height="15" rx="2" fill="` + p.sand + `"/>` +
		`<path d="M17 32V19a2 2 0 0 1 2-2h13A15 15 0 0 1 17 32Z" fill="` + p.warm + `"/></svg>` + "\n"
}

// icons are the home page's feature icons: a tile of the theme's colours
// with a simple shape.
var icons = map[string]string{
	"icon-pages.svg":  `<rect x="14" y="10" width="20" height="28" rx="2" fill="#f4efe6"/><rect x="18" y="16" width="12" height="2" fill="#14253a"/><rect x="18" y="21" width="12" height="2" fill="#14253a"/><rect x="18" y="26" width="8" height="2" fill="#14253a"/>`,
	"icon-api.svg":    `<path d="M18 14l-8 10 8 10M30 14l8 10-8 10" stroke="#f4efe6" stroke-width="3.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/>`,
	"icon-scale.svg":  `<rect x="10" y="28" width="8" height="10" rx="1" fill="#f4efe6"/><rect x="20" y="20" width="8" height="18" rx="1" fill="#f4efe6"/><rect x="30" y="12" width="8" height="26" rx="1" fill="#e0a458"/>`,
	"icon-locale.svg": `<circle cx="24" cy="24" r="13" stroke="#f4efe6" stroke-width="3" fill="none"/><path d="M11 24h26M24 11c-6 7-6 19 0 26M24 11c6 7 6 19 0 26" stroke="#f4efe6" stroke-width="2.5" fill="none"/>`,
}

func icon(shape string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48" width="48" height="48">` + notice +
		`<rect width="48" height="48" rx="12" fill="` + palette.teal + `"/>` + shape + "</svg>\n"
}
