# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# stack-depth.awk: the deepest stack a call of ROOT can use, from the call
# graph files gcc writes with -fcallgraph-info=su (one per translation
# unit, VCG): each node's label ends in "N bytes (static)" (or
# "(dynamic,bounded)") for a function defined there, and each edge is a
# call.  A function of another file is a node without a size, matched by
# name.  Prints "BYTES PATH" (PATH: the deepest chain, "a > b > c");
# fails on recursion, on an unbounded frame and on a call to a function
# defined nowhere (an indirect or external call would escape the bound).
#
#   awk -v root=stub_main -f stack-depth.awk *.ci
function depth(f,    i, d, best, via) {
	if (f in memo)
		return memo[f]
	if (f in busy) {
		print "stack-depth: recursion through " f > "/dev/stderr"
		bad = 1
		return 0
	}
	if (!(f in size)) {
		print "stack-depth: " f " is called but defined nowhere" > "/dev/stderr"
		bad = 1
		return 0
	}
	busy[f] = 1
	best = 0
	via = ""
	for (i = 1; i <= ncalls[f]; i++) {
		d = depth(callee[f, i])
		if (d > best) {
			best = d
			via = callee[f, i]
		}
	}
	delete busy[f]
	deepest[f] = via
	memo[f] = size[f] + best
	return memo[f]
}
# A node's title: "file:name" for a static function, "name" otherwise; a
# call names the callee as its node's title.
/^node:/ {
	match($0, /title: "[^"]*"/)
	title = substr($0, RSTART + 8, RLENGTH - 9)
	if (match($0, /[0-9]+ bytes \([a-z,]*\)/)) {
		n = substr($0, RSTART, RLENGTH)
		split(n, w, " ")
		if (n ~ /dynamic/ && n !~ /bounded/) {
			print "stack-depth: " title " has an unbounded frame" > "/dev/stderr"
			bad = 1
		}
		size[title] = w[1] + 0
	}
	next
}
/^edge:/ {
	match($0, /sourcename: "[^"]*"/)
	from = substr($0, RSTART + 13, RLENGTH - 14)
	match($0, /targetname: "[^"]*"/)
	to = substr($0, RSTART + 13, RLENGTH - 14)
	if (!((from, to) in seen)) {
		seen[from, to] = 1
		callee[from, ++ncalls[from]] = to
	}
}
END {
	total = depth(root)
	path = root
	for (f = root; deepest[f] != ""; f = deepest[f])
		path = path " > " deepest[f]
	gsub(/[^ >]*:/, "", path)
	print total, path
	exit bad
}
