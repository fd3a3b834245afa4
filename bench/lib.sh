# Helpers the benchmarks share; sourced from the project root.

# median: of the numbers on stdin, one per line
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
