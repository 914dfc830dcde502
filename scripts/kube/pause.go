// The test node's pod sandbox process: waits for SIGINT or SIGTERM and exits (scripts/kube/cluster.sh
// builds it; nothing is pulled from a registry).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	<-c
}
