# tools/draw/embed.awk - turn the HTML view's files into C strings:
# view_head.html -> draw_html_head[], view.js -> draw_html_script[].
# Run by the Makefile into build/obj/tools/draw/view_assets.c.  Character
# by character, so that any awk (mawk, gawk) escapes the same way.
FNR == 1 {
	if (NR > 1)
		print ";"
	name = FILENAME
	sub(/.*\//, "", name)
	sub(/\..*$/, "", name)
	sym = name == "view" ? "draw_html_script" : "draw_html_head"
	print "extern const char " sym "[];"
	print "const char " sym "[] ="
}
{
	out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\" c
		else
			out = out c
	}
	printf "\"%s\\n\"\n", out
}
END { print ";" }
