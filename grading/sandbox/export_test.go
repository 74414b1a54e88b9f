package sandbox

// MemoryCgroups reports whether the process sandbox can give jobs memory
// cgroups here, and if not, why.
func MemoryCgroups() (bool, error) {
	_, err := findCgroupHost()
	return err == nil, err
}
