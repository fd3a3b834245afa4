#!/bin/sh
# export: CSV with every attribute, and Chrome trace-event JSON (checked
# with python3 -m json.tool when python3 exists).
# Expected output is written out literally; see tests/traces/ for the inputs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
expect csv 0 export --format csv tests/traces/node2.xml <<'EOF'
kind,node,pid,tid,thread,start,end,dur,api,res,amount,size,offset,whence,fd,oldfd,fd2,infd,inpath,path,path2,peer,proto,flags,result,errno,child,status,req,timeout,count,throttle,limit,seq,id,parent,depth,label,error
stop,node2,,,,1.000000000,1.500000000,0.500000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
thread,node2,200,200,server,0.000000000,2.000000000,2.000000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
compute,node2,200,200,server,0.000000000,0.100000000,0.100000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
io,node2,200,200,server,0.100000000,0.600000000,0.500000000,accept,netmeta,,,,,4,3,,,,,,127.0.0.1:40002,tcp,,,,,,,,,,,,,,,,
compute,node2,200,200,server,0.600000000,0.600000000,0.000000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
io,node2,200,200,server,0.600000000,0.700000000,0.100000000,recv,netrecv,10,64,,,4,,,,,,,127.0.0.1:40002,tcp,,,,,,,,,,,1,,,,,
compute,node2,200,200,server,0.700000000,0.800000000,0.100000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
io,node2,200,200,server,0.800000000,0.850000000,0.050000000,send,netsend,20,20,,,4,,,,,,,127.0.0.1:40002,tcp,,,,,,,,,,,2,,,,,
compute,node2,200,200,server,0.850000000,2.000000000,1.150000000,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
EOF

expect chrome 0 export --format chrome tests/traces/node2.xml <<'EOF'
{"displayTimeUnit":"ns","traceEvents":[
{"ph":"M","pid":1000000,"tid":0,"name":"process_name","args":{"name":"node2 stops"}},
{"ph":"X","pid":1000000,"tid":0,"ts":1000000.000,"dur":500000.000,"name":"stopped","cat":"stop"},
{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"node2 pid 200 /bin/server","pid":200}},
{"ph":"M","pid":1,"tid":200,"name":"thread_name","args":{"name":"server 200","tid":200}},
{"ph":"X","pid":1,"tid":200,"ts":100000.000,"dur":500000.000,"name":"accept","cat":"netmeta","args":{"pid":200,"tid":200,"fd":4,"oldfd":3,"peer":"127.0.0.1:40002","proto":"tcp"}},
{"ph":"X","pid":1,"tid":200,"ts":600000.000,"dur":100000.000,"name":"recv","cat":"netrecv","args":{"pid":200,"tid":200,"amount":10,"size":64,"fd":4,"peer":"127.0.0.1:40002","proto":"tcp","seq":1}},
{"ph":"X","pid":1,"tid":200,"ts":800000.000,"dur":50000.000,"name":"send","cat":"netsend","args":{"pid":200,"tid":200,"amount":20,"size":20,"fd":4,"peer":"127.0.0.1:40002","proto":"tcp","seq":2}}
]}
EOF

expect bad-format 2 export --format pdf tests/traces/node2.xml <<'EOF'
island-analyze: export: --format must be csv, chrome, xml, isb or otf2, not 'pdf'
EOF

(cd "$R" && bin/island-analyze export --format chrome -o "$out/two.json" \
	tests/traces/basic.xml tests/traces/node2.xml) || { echo "FAIL: export -o"; fail=1; }
if command -v python3 > /dev/null; then
	python3 -m json.tool "$out/two.json" > /dev/null || { echo "FAIL: not JSON"; fail=1; }
	python3 -m json.tool "$out/chrome.out" > /dev/null || { echo "FAIL: not JSON"; fail=1; }
	# every call and region carries its process's real pid and its
	# thread's tid; numeric attributes are JSON numbers, the others strings
	python3 - "$out/two.json" <<'PY' || { echo "FAIL: chrome args"; fail=1; }
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ids = sorted({(e["args"]["pid"], e["args"]["tid"]) for e in ev
              if e["ph"] == "X" and e["cat"] != "stop"})
assert ids == [(100, 100), (100, 101), (200, 200)], ids
assert all(isinstance(e["args"][k], int) for e in ev if e["ph"] == "X" and "args" in e
           for k in ("fd", "amount", "size", "seq", "depth") if k in e["args"]), "a number as a string"
assert all(isinstance(e["args"][k], str) for e in ev if e["ph"] == "X" and "args" in e
           for k in ("peer", "proto", "path", "flags") if k in e["args"]), "a string as a number"
names = {e["args"]["name"]: e["args"].get("pid", e["args"].get("tid")) for e in ev if e["ph"] == "M"}
assert names["node1 pid 100 /bin/app"] == 100 and names["worker 101"] == 101, names
PY
else
	echo "python3 missing: JSON syntax not checked"
fi
exit $fail
