# island-replay re-issues asynchronous operations asynchronously, through
# the interface they went through, keeping their queue's depth: fio at
# iodepth 8 through libaio, posixaio and io_uring (2 MiB, random
# read/write), captured (io_uring under --syscalls, where every
# operation is seen), replayed with no failed call and the same bytes
# per family; the replay, itself captured, submits the same operations
# to a queue of the same interface with the same most in flight (queues
# report: async, ops, bytes, depth_max; io_uring: more than one).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v fio >/dev/null || { echo "fio not installed"; exit 77; }

for e in libaio posixaio io_uring; do
	opt=; [ $e = io_uring ] && opt=--syscalls
	rm -f data
	"$CAPTURE" $opt -o $e.xml -- fio --name=t --filename="$PWD/data" --size=2m --rw=randrw \
		--bs=4k --iodepth=8 --ioengine=$e --output-format=json --output=$e.json \
		> /dev/null 2> cap.err || fail "$e: capture: $(cat cap.err)"
	grep -q '<trace version="1" generator="[^"]*" complete="true">' $e.xml ||
		fail "$e: trace incomplete: $(grep -o 'reason="[^"]*"' $e.xml)"
	rm -rf r.$e
	# the replay captured in turn, as the original was
	"$CAPTURE" $opt -o replayed.$e.xml -- "$REPLAY" -q --root r.$e -o rep.$e.xml $e.xml \
		2> rep.err || fail "$e: replay: $(cat rep.err)"
	expect_eq "$e: failed calls" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' rep.$e.xml)" 0
	for fam in read write; do
		line=$(grep "<family name=\"$fam\"" rep.$e.xml) || fail "$e: no $fam family"
		o=$(echo "$line" | sed 's/.*bytes_original="\([0-9]*\)".*/\1/')
		r=$(echo "$line" | sed 's/.*bytes_replayed="\([0-9]*\)".*/\1/')
		expect_eq "$e: $fam bytes replayed" "$r" "$o"
	done
	"$ANALYZE" queues --csv $e.xml 2>/dev/null | tail -n +2 | cut -d, -f3,5,6,9 > want.txt
	"$ANALYZE" queues --csv replayed.$e.xml 2>/dev/null | tail -n +2 | cut -d, -f3,5,6,9 > got.txt
	[ -s want.txt ] || fail "$e: the original has no queue"
	if [ $e = io_uring ]; then
		# a ring's operation completes, for the capture, when it reads
		# the CQ entry (at an io_uring_enter), not when the program
		# reaps it: the depth it sees depends on how fast the storage
		# answered, the replay's as the original's. The same ring
		# operations, and more than one in flight (a synchronous replay
		# has one)
		expect_eq "$e: the replay's queue (async,ops,bytes)" "$(cut -d, -f1-3 got.txt)" \
			"$(cut -d, -f1-3 want.txt)"
		within "$e: the replay's depth_max" "$(cut -d, -f4 got.txt)" 2 "$(cut -d, -f4 want.txt)"
		continue
	fi
	diff -u want.txt got.txt || fail "$e: the replay's queues differ (async,ops,bytes,depth_max)"
done
exit 0
