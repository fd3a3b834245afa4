# Waits the replay cannot reissue as they were (hand-made traces, causal
# mode): a thread's wait on a condition that another thread of its process
# ends, after that thread's poll waited for a peer outside the trace (an
# MPI rank's main thread in MPI_Finalize while its progress thread gets the
# daemon's answer); zero-timeout polls (MPI_Recv polls so); and a busy wait,
# zero-timeout polls until a receive's data came from another node.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

head='<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" generator="hand" complete="true">'
node() { # NAME END
	echo "<node name=\"$1\" host=\"h\" epoch=\"1763798662.000000000\" start=\"0.000000000\" end=\"$2\" clock=\"monotonic\">"
	echo "<command><arg>$1</arg></command>"
	echo "<process pid=\"${3:-10}\" ppid=\"1\" exe=\"/bin/$1\" cwd=\"/\" start=\"0.000000000\" end=\"$2\" status=\"exit:0\" complete=\"true\">"
}
thread() { # TID END
	echo "<thread tid=\"$1\" name=\"t\" start=\"0.000000000\" end=\"$2\" exit=\"process\" complete=\"true\">"
}
io() { # API RES START END [MORE]
	echo "<io api=\"$1\" res=\"$2\" start=\"$3\" end=\"$4\" $5/>"
}

# 1. A thread asks a peer outside the trace (a sink in the replay), whose
# answer takes 59 ms, in a poll before the receive: replayed as nothing,
# the poll left the node 97 % short.
{
	echo "$head"
	node peer 0.060200000
	thread 2 0.060200000
	io socket netmeta 0.000100000 0.000110000 'fd="3" proto="tcp"'
	io connect netmeta 0.000120000 0.001100000 'fd="3" peer="203.0.113.7:80" proto="tcp"'
	io send netsend 0.001200000 0.001300000 'fd="3" amount="10" size="10" peer="203.0.113.7:80" proto="tcp"'
	io poll wait 0.001300000 0.060000000 'timeout="1.000000000" count="1"'
	io recv netrecv 0.060000000 0.060100000 'fd="3" amount="4" size="4" peer="203.0.113.7:80" proto="tcp"'
	echo '<compute dur="0.000100000"/>'
	echo '</thread></process><files/><sockets>'
	echo '<socket proto="tcp" local="10.0.0.1:40000" peer="203.0.113.7:80" sent="10" received="4" direction="out" open_at_end="false"/>'
	echo '</sockets></node></trace>'
} > peer.xml
check_trace peer.xml
replay_within 10 peer.xml

# 2. The main thread waits 59 ms in pthread_cond_wait, then computes 30 ms;
# its other thread asks a peer outside the trace (a sink in the replay),
# whose answer takes 59 ms, in a poll before the receive, and wakes it:
# replayed as nothing, the wait left the node 34 % short.
{
	echo "$head"
	node rank 0.091000000
	thread 1 0.091000000
	echo '<compute dur="0.001000000"/>'
	io pthread_cond_wait wait 0.001000000 0.060500000
	echo '<compute dur="0.030500000"/>'
	echo '</thread>'
	thread 2 0.060200000
	io socket netmeta 0.000100000 0.000110000 'fd="3" proto="tcp"'
	io connect netmeta 0.000120000 0.001100000 'fd="3" peer="203.0.113.7:80" proto="tcp"'
	io send netsend 0.001200000 0.001300000 'fd="3" amount="10" size="10" peer="203.0.113.7:80" proto="tcp"'
	io poll wait 0.001300000 0.060000000 'timeout="1.000000000" count="1"'
	io recv netrecv 0.060000000 0.060100000 'fd="3" amount="4" size="4" peer="203.0.113.7:80" proto="tcp"'
	echo '<compute dur="0.000100000"/>'
	echo '</thread></process><files/><sockets>'
	echo '<socket proto="tcp" local="10.0.0.1:40000" peer="203.0.113.7:80" sent="10" received="4" direction="out" open_at_end="false"/>'
	echo '</sockets></node></trace>'
} > cond.xml
check_trace cond.xml
replay_within 10 cond.xml

exit 0
