package soak

import "syscall"

// procAttr kills a replica if the soak dies without stopping it.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
