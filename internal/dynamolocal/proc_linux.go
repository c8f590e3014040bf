package dynamolocal

import "syscall"

// procAttr puts the server in its own process group, so Close can stop it
// and anything it starts, and kills it if the parent dies without Close
// (a test binary that panics or times out).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
