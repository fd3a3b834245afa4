#!/bin/sh
# The --discover merge on many simulated nodes (a ring over TCP, ROUNDS
# messages each): its time and peak memory (GNU time's maximum resident
# set), and the message edges it found against those the ring has.
#   NS="100 300 1000" ROUNDS=50 bench/merge-scale.sh
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x build/bench/merge-scale ] || make -s build/bench/merge-scale || exit 2
printf '%6s %6s %9s %9s %8s %8s\n' nodes rounds "I/Os" seconds "RSS MB" edges
for n in ${NS:-100 300 1000}; do
	rounds=${ROUNDS:-50}
	rm -rf "$tmp/t"
	want=$(/usr/bin/python3 bench/merge-scale.py "$tmp/t" "$n" "$rounds")
	/usr/bin/time -f '%e %M' -o "$tmp/time" build/bench/merge-scale "$tmp/t" "$n" "$tmp/out.xml" \
		2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
	set -- $(cat "$tmp/time")
	got=$(grep -c '<wait [^>]*origin="message"' "$tmp/out.xml")
	printf '%6s %6s %9s %9s %8s %8s\n' "$n" "$rounds" $((n * (rounds * 3 + 6))) "$1" \
		"$(echo "$2 / 1024" | bc)" "$got of $want"
done
