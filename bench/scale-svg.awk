# bench/scale-svg.awk - the chart of bench/scale.sh's TSV, as SVG on stdout.
#
#   awk -F'\t' -v title=TEXT -v subtitle=TEXT -f bench/scale-svg.awk scale.tsv >scale.svg
#
# Two panels drawn from the "scale" rows: time per entry (us, the median run
# over files and directories) and peak RSS (MiB) against the number of files
# (log axis), one line per tool and filesystem (colour: tool; solid with
# circles: tmpfs, dashed with squares: ext4).  Plain awk (POSIX, mawk and
# gawk), no other dependency.

function esc(s) {
	gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
	return s
}
function log10(x) { return log(x) / log(10) }
function nice(v,   e, f) { # the round number at or above v
	if (v <= 0) return 1
	e = exp(log(10) * int(log10(v) + (v < 1 ? -1 : 0)))
	f = v / e
	if (f <= 1) f = 1; else if (f <= 2) f = 2; else if (f <= 2.5) f = 2.5; else if (f <= 5) f = 5; else f = 10
	return f * e
}
function nlabel(n) {
	if (n >= 1000000 && n % 100000 == 0) return (n / 1000000) "M"
	if (n >= 1000 && n % 100 == 0) return (n / 1000) "k"
	return n
}
function num(v,   s) { # tick labels: no trailing zeros
	s = sprintf("%.2f", v); sub(/0+$/, "", s); sub(/\.$/, "", s)
	return s
}
function px(n) { return X0 + (log10(n) - LX0) / (LX1 - LX0) * PW }
function py(v, ymax) { return Y1 - v / ymax * PH }

# panel p (1: time, 2: RSS) at left x offset off
function panel(p, off, label, ymax,   i, k, s, n, x, y, path, t, step, v) {
	X0 = off
	printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", X0, Y1 - PH, PW, PH
	step = ymax / 5
	for (i = 0; i <= 5; i++) {
		v = i * step; y = py(v, ymax)
		printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", X0, y, X0 + PW, y
		printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n", X0 - 5, y + 4, num(v)
	}
	for (i = 1; i <= nsize; i++) {
		x = px(sizes[i])
		printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, Y1 - PH, x, Y1
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n", x, Y1 + 15, nlabel(sizes[i])
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">files in the tree (log scale)</text>\n", X0 + PW / 2, Y1 + 33
	printf "<text transform=\"translate(%d,%d) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n", X0 - 45, Y1 - PH / 2, label
	if (p == 2 && ymax >= 64) { # the issue 16 target, when the axis reaches it
		y = py(64, ymax)
		printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n", X0, y, X0 + PW, y
		printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\" fill=\"#666\">target 64 MiB</text>\n", X0 + PW - 4, y - 4
	}
	for (k = 1; k <= nser; k++) {
		s = ser[k]; path = ""
		for (i = 1; i <= nsize; i++) {
			n = sizes[i]
			if (!((s, n, p) in val)) continue
			x = px(n); y = py(val[s, n, p], ymax)
			path = path (path == "" ? "M" : " L") sprintf("%.1f %.1f", x, y)
			if (sfs[s] == "ext4")
				printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"><title>%s %s: %s</title></rect>\n", x - 3.5, y - 3.5, col[s], esc(s), nlabel(n), val[s, n, p]
			else
				printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s %s: %s</title></circle>\n", x, y, col[s], esc(s), nlabel(n), val[s, n, p]
		}
		if (path != "")
			printf "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", path, col[s], sfs[s] == "ext4" ? " stroke-dasharray=\"6,4\"" : ""
	}
}

BEGIN { FS = "\t" }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["workload"] == "scale" {
	n = $c["n"] + 0; s = $c["tool"] " on " $c["fs"]
	if (!(s in seen)) { seen[s] = 1; ser[++nser] = s; sfs[s] = $c["fs"]; stool[s] = $c["tool"] }
	if (!(n in hasn)) { hasn[n] = 1; sizes[++nsize] = n }
	if ($c["us_per_entry"] != "-") { val[s, n, 1] = $c["us_per_entry"] + 0; if (val[s, n, 1] > max1) max1 = val[s, n, 1] }
	if ($c["peak_rss_kib"] != "-") { val[s, n, 2] = sprintf("%.1f", $c["peak_rss_kib"] / 1024) + 0; if (val[s, n, 2] > max2) max2 = val[s, n, 2] }
}
END {
	W = 960; H = 500; PW = 370; PH = 300; Y1 = 400
	# sizes in increasing order (insertion sort: a handful of values)
	for (i = 2; i <= nsize; i++) { v = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] > v; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = v }
	if (nsize == 0) { LX0 = 3; LX1 = 7 }
	else { LX0 = log10(sizes[1]) - 0.2; LX1 = log10(sizes[nsize]) + 0.2 }
	for (k = 1; k <= nser; k++) {
		s = ser[k]
		col[s] = stool[s] ~ /^smartcp/ ? "#1f77b4" : (stool[s] ~ /^cp/ ? "#d62728" : "#2ca02c")
	}
	printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n", W, H, W, H
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	printf "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", W / 2, esc(title)
	printf "<text x=\"%d\" y=\"44\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n", W / 2, esc(subtitle)
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">time per entry (us, median run)</text>\n", 70 + PW / 2, Y1 - PH - 12
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">peak RSS (MiB, largest over runs)</text>\n", 560 + PW / 2, Y1 - PH - 12
	if (nser == 0)
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"14\">no scale rows in the TSV</text>\n", W / 2, H / 2
	panel(1, 70, "us per entry", nice(max1 * 1.1))
	panel(2, 560, "MiB", nice(max2 * 1.1))
	# legend, one entry per series, in a row below the panels
	x = 70; y = Y1 + 65
	for (k = 1; k <= nser; k++) {
		s = ser[k]
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", x, y, x + 30, y, col[s], sfs[s] == "ext4" ? " stroke-dasharray=\"6,4\"" : ""
		if (sfs[s] == "ext4") printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>\n", x + 11.5, y - 3.5, col[s]
		else printf "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>\n", x + 15, y, col[s]
		printf "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", x + 36, y + 4, esc(s)
		x += 210
		if (x > W - 200) { x = 70; y += 20 }
	}
	printf "</svg>\n"
}
