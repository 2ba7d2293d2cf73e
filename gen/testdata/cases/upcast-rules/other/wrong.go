//go:build tools

package kitchen
