//go:build !linux

package soak

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
