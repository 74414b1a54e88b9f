//go:build !unix

package clientlesson

// oNoFollow is 0 where open has no O_NOFOLLOW: the files opened with it
// are created anew (O_CREATE|O_EXCL), which no link can stand in for.
const oNoFollow = 0
