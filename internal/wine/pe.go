package wine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Forward is one export of a forwarder DLL: the name programs ask for, and
// the DLL.function the loader hands them instead, such as
// "advapi32.SystemFunction036".
type Forward struct {
	Name, To string
}

// PE layout of ForwarderDLL: the headers fill the first file block, the one
// section (.rdata, the export table) the second.
const (
	fileAlign    = 0x200
	sectionAlign = 0x1000
	sectionRVA   = 0x1000
	peOffset     = 0x40
	optionalSize = 240 // PE32+ optional header with 16 data directories
	exportDirLen = 40
	maxSection   = fileAlign * 8
)

// ForwarderDLL returns an x86-64 Windows DLL, named name (such as
// "bcryptprimitives.dll"), that holds no code: each of its exports forwards
// to a function of another DLL, which the loader resolves in its place.
// Wine releases before 9 lack bcryptprimitives.dll, whose ProcessPrng every
// Go program since Go 1.24 needs to start; forwarding it to
// advapi32.SystemFunction036 (RtlGenRandom: the same arguments, a buffer
// and its length, and non-zero on success) lets such a program run there.
func ForwarderDLL(name string, exports []Forward) ([]byte, error) {
	if name == "" || len(exports) == 0 {
		return nil, errors.New("a forwarder DLL needs a name and at least one export")
	}
	ex := slices.Clone(exports)
	// The loader looks names up by binary search: the table is sorted.
	slices.SortFunc(ex, func(a, b Forward) int { return bytes.Compare([]byte(a.Name), []byte(b.Name)) })
	t, err := layExports(name, ex)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeHeaders(&b, t)
	if b.Len() > fileAlign {
		return nil, fmt.Errorf("the headers of %s take %d bytes, more than one block", name, b.Len())
	}
	b.Write(make([]byte, fileAlign-b.Len()))
	writeExports(&b, t)
	b.Write(make([]byte, fileAlign+t.rawLen-b.Len()))
	return b.Bytes(), nil
}

// exportTable is the export table of a forwarder DLL as laid out in its
// one section: where each of its parts starts (RVAs), and its strings.
type exportTable struct {
	n                               int // exports
	funcs, names, ordinals, strings int // RVAs of the three tables and the strings
	strData                         bytes.Buffer
	dllName                         uint32   // RVA of the DLL's name
	funcRVA, nameRVA                []uint32 // RVAs of each forwarder string and name
	exportLen                       int      // bytes of the whole table
	rawLen                          int      // exportLen rounded up to a file block
}

// layExports lays out the export table of the DLL name for the sorted
// exports ex, refusing an export with no name, no target or a NUL byte,
// and a table larger than maxSection.
func layExports(name string, ex []Forward) (*exportTable, error) {
	n := len(ex)
	t := &exportTable{n: n, funcs: sectionRVA + exportDirLen}
	t.names = t.funcs + 4*n
	t.ordinals = t.names + 4*n
	t.strings = t.ordinals + 2*n
	str := func(s string) uint32 {
		rva := uint32(t.strings + t.strData.Len())
		t.strData.WriteString(s)
		t.strData.WriteByte(0)
		return rva
	}
	t.dllName = str(name)
	t.funcRVA = make([]uint32, n)
	t.nameRVA = make([]uint32, n)
	for i, e := range ex {
		if e.Name == "" || e.To == "" || bytes.IndexByte([]byte(e.Name+e.To), 0) >= 0 {
			return nil, fmt.Errorf("export %d of %s: a name and a DLL.function to forward to are needed", i, name)
		}
		t.nameRVA[i] = str(e.Name)
		t.funcRVA[i] = str(e.To) // inside the export table: a forwarder
	}
	t.exportLen = t.strings + t.strData.Len() - sectionRVA
	if t.exportLen > maxSection {
		return nil, fmt.Errorf("the exports of %s take %d bytes, more than the %d this writer lays out", name, t.exportLen, maxSection)
	}
	t.rawLen = (t.exportLen + fileAlign - 1) / fileAlign * fileAlign
	return t, nil
}

// writeHeaders writes the DOS, COFF, optional (PE32+) and section headers
// of a DLL whose one section holds the export table t.
func writeHeaders(b *bytes.Buffer, t *exportTable) {
	le := binary.LittleEndian
	w := func(v any) { _ = binary.Write(b, le, v) }
	// DOS header: the magic, and where the PE header is.
	dos := make([]byte, peOffset)
	copy(dos, "MZ")
	le.PutUint32(dos[0x3c:], peOffset)
	b.Write(dos)
	b.WriteString("PE\x00\x00")
	// COFF header.
	w(uint16(0x8664))          // Machine: x86-64
	w(uint16(1))               // NumberOfSections
	w(uint32(0))               // TimeDateStamp
	w(uint32(0))               // PointerToSymbolTable
	w(uint32(0))               // NumberOfSymbols
	w(uint16(optionalSize))    // SizeOfOptionalHeader
	w(uint16(0x2000 | 0x0022)) // DLL | LARGE_ADDRESS_AWARE | EXECUTABLE_IMAGE
	// Optional header (PE32+).
	w(uint16(0x20b))                                                            // Magic
	w(uint16(0))                                                                // linker version
	w(uint32(0))                                                                // SizeOfCode
	w(uint32(t.rawLen))                                                         // SizeOfInitializedData
	w(uint32(0))                                                                // SizeOfUninitializedData
	w(uint32(0))                                                                // AddressOfEntryPoint: none
	w(uint32(sectionRVA))                                                       // BaseOfCode
	w(uint64(0x180000000))                                                      // ImageBase
	w(uint32(sectionAlign))                                                     // SectionAlignment
	w(uint32(fileAlign))                                                        // FileAlignment
	w([6]uint16{6, 0, 0, 0, 6, 0})                                              // OS, image and subsystem versions
	w(uint32(0))                                                                // Win32VersionValue
	w(uint32(sectionRVA + (t.rawLen+sectionAlign-1)/sectionAlign*sectionAlign)) // SizeOfImage
	w(uint32(fileAlign))                                                        // SizeOfHeaders
	w(uint32(0))                                                                // CheckSum
	w(uint16(3))                                                                // Subsystem: console
	w(uint16(0))                                                                // DllCharacteristics
	w([4]uint64{0x100000, 0x1000, 0x100000, 0x1000})                            // stack and heap sizes
	w(uint32(0))                                                                // LoaderFlags
	w(uint32(16))                                                               // NumberOfRvaAndSizes
	w([2]uint32{sectionRVA, uint32(t.exportLen)})                               // the export table
	w([15][2]uint32{})
	// Section header.
	b.WriteString(".rdata\x00\x00")
	w(uint32(t.exportLen)) // VirtualSize
	w(uint32(sectionRVA))  // VirtualAddress
	w(uint32(t.rawLen))    // SizeOfRawData
	w(uint32(fileAlign))   // PointerToRawData
	w([3]uint32{})         // relocations, line numbers, their counts
	w(uint32(0x40000040))  // INITIALIZED_DATA | MEM_READ
}

// writeExports writes the export directory, then its three tables, then
// the strings.
func writeExports(b *bytes.Buffer, t *exportTable) {
	w := func(v any) { _ = binary.Write(b, binary.LittleEndian, v) }
	w(uint32(0))          // Characteristics
	w(uint32(0))          // TimeDateStamp
	w(uint32(0))          // versions
	w(t.dllName)          // Name
	w(uint32(1))          // Base: the first ordinal
	w(uint32(t.n))        // NumberOfFunctions
	w(uint32(t.n))        // NumberOfNames
	w(uint32(t.funcs))    // AddressOfFunctions
	w(uint32(t.names))    // AddressOfNames
	w(uint32(t.ordinals)) // AddressOfNameOrdinals
	w(t.funcRVA)
	w(t.nameRVA)
	for i := range t.n {
		w(uint16(i))
	}
	b.Write(t.strData.Bytes())
}
