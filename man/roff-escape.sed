# Plain text into roff lines that print as they are, for the table of
# rules that the man page takes from smartcp --rules (man/Makemodule.am).
s/\\/\\e/g
s/-/\\-/g
s/^\([.']\)/\\\&\1/
s/^$/.sp/
