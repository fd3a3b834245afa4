// gowrite DIR: a Go program (statically linked, its runtime makes the
// system calls: no libc), the reproducer of a known limit of --syscalls
// (docs/island-capture.md: Go programs). Build it with
// `go build -o gowrite tests/apps/go/gowrite.go` (Debian golang-go). Four
// goroutines each write their own file, 10 writes of 1000*(g+1) bytes;
// the program prints its own truth, "DIR/gG.dat BYTES" per file.
package main

import (
	"fmt"
	"os"
	"sync"
)

func main() {
	dir := os.Args[1]
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			f, err := os.Create(fmt.Sprintf("%s/g%d.dat", dir, g))
			if err != nil {
				panic(err)
			}
			buf := make([]byte, 1000*(g+1))
			for i := 0; i < 10; i++ {
				if _, err := f.Write(buf); err != nil {
					panic(err)
				}
			}
			f.Close()
		}(g)
	}
	wg.Wait()
	for g := 0; g < 4; g++ {
		fmt.Printf("%s/g%d.dat %d\n", dir, g, 10000*(g+1))
	}
}
