# strace -f -y output -> "path bytes_read bytes_written opened" per file.
# Run with -v ROOT=dir: only files under ROOT are reported (relative).
function fdpath(arg,    m) {
	if (match(arg, /^[0-9]+<[^>]*>/)) {
		m = substr(arg, RSTART, RLENGTH)
		sub(/^[0-9]+</, "", m)
		sub(/>$/, "", m)
		return m
	}
	return ""
}
function retval(line,    r) {
	r = line
	sub(/.*\) += /, "", r)
	return r + 0
}
function note(p) {
	if (index(p, ROOT "/") == 1) {
		p = substr(p, length(ROOT) + 2)
		seen[p] = 1
		return p
	}
	return ""
}
{
	pid = $1
	line = substr($0, length(pid) + 2)
	sub(/^ +/, "", line)
	if (line ~ /<unfinished \.\.\.>$/) {
		sub(/ <unfinished \.\.\.>$/, "", line)
		stash[pid] = line
		next
	}
	if (line ~ /^<\.\.\. [a-z0-9_]+ resumed>/) {
		sub(/^<\.\.\. [a-z0-9_]+ resumed>/, "", line)
		line = stash[pid] line
	}
	name = line
	sub(/\(.*/, "", name)
	args = line
	sub(/^[a-z0-9_]+\(/, "", args)
	n = split(args, a, ", ")
	ret = retval(line)
	if (name ~ /^(open|openat|creat)$/ && line !~ /O_PATH/) {
		# O_PATH descriptors do no I/O; libc opens them internally
		# (fchmodat, ...) where no interposer sees them.
		r = line
		sub(/.*\) += /, "", r)
		if (r ~ /^[0-9]+</) {
			p = note(fdpath(r))
			if (p != "") opened[p] = 1
		}
	} else if (name ~ /^(read|pread64|readv|preadv|preadv2)$/) {
		p = note(fdpath(a[1])); if (p != "" && ret > 0) rd[p] += ret
	} else if (name ~ /^(write|pwrite64|writev|pwritev|pwritev2)$/) {
		p = note(fdpath(a[1])); if (p != "" && ret > 0) wr[p] += ret
	} else if (name == "copy_file_range" || name == "splice") {
		p = note(fdpath(a[1])); if (p != "" && ret > 0) rd[p] += ret
		p = note(fdpath(a[3])); if (p != "" && ret > 0) wr[p] += ret
	} else if (name == "sendfile") {
		p = note(fdpath(a[2])); if (p != "" && ret > 0) rd[p] += ret
		p = note(fdpath(a[1])); if (p != "" && ret > 0) wr[p] += ret
	}
}
END {
	for (p in seen)
		if (opened[p] || rd[p] || wr[p])
			printf "%s %d %d %d\n", p, rd[p], wr[p], opened[p] ? 1 : 0
}
