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
	n := len(ex)
	funcs := sectionRVA + exportDirLen
	names := funcs + 4*n
	ordinals := names + 4*n
	strs := ordinals + 2*n
	var strData bytes.Buffer
	str := func(s string) uint32 {
		rva := uint32(strs + strData.Len())
		strData.WriteString(s)
		strData.WriteByte(0)
		return rva
	}
	dllName := str(name)
	funcRVA := make([]uint32, n)
	nameRVA := make([]uint32, n)
	for i, e := range ex {
		if e.Name == "" || e.To == "" || bytes.IndexByte([]byte(e.Name+e.To), 0) >= 0 {
			return nil, fmt.Errorf("export %d of %s: a name and a DLL.function to forward to are needed", i, name)
		}
		nameRVA[i] = str(e.Name)
		funcRVA[i] = str(e.To) // inside the export table: a forwarder
	}
	exportLen := strs + strData.Len() - sectionRVA
	if exportLen > maxSection {
		return nil, fmt.Errorf("the exports of %s take %d bytes, more than the %d this writer lays out", name, exportLen, maxSection)
	}
	rawLen := (exportLen + fileAlign - 1) / fileAlign * fileAlign

	var b bytes.Buffer
	le := binary.LittleEndian
	w := func(v any) { _ = binary.Write(&b, le, v) }
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
	w(uint16(0x20b))                                                          // Magic
	w(uint16(0))                                                              // linker version
	w(uint32(0))                                                              // SizeOfCode
	w(uint32(rawLen))                                                         // SizeOfInitializedData
	w(uint32(0))                                                              // SizeOfUninitializedData
	w(uint32(0))                                                              // AddressOfEntryPoint: none
	w(uint32(sectionRVA))                                                     // BaseOfCode
	w(uint64(0x180000000))                                                    // ImageBase
	w(uint32(sectionAlign))                                                   // SectionAlignment
	w(uint32(fileAlign))                                                      // FileAlignment
	w([6]uint16{6, 0, 0, 0, 6, 0})                                            // OS, image and subsystem versions
	w(uint32(0))                                                              // Win32VersionValue
	w(uint32(sectionRVA + (rawLen+sectionAlign-1)/sectionAlign*sectionAlign)) // SizeOfImage
	w(uint32(fileAlign))                                                      // SizeOfHeaders
	w(uint32(0))                                                              // CheckSum
	w(uint16(3))                                                              // Subsystem: console
	w(uint16(0))                                                              // DllCharacteristics
	w([4]uint64{0x100000, 0x1000, 0x100000, 0x1000})                          // stack and heap sizes
	w(uint32(0))                                                              // LoaderFlags
	w(uint32(16))                                                             // NumberOfRvaAndSizes
	w([2]uint32{sectionRVA, uint32(exportLen)})                               // the export table
	w([15][2]uint32{})
	// Section header.
	b.WriteString(".rdata\x00\x00")
	w(uint32(exportLen))  // VirtualSize
	w(uint32(sectionRVA)) // VirtualAddress
	w(uint32(rawLen))     // SizeOfRawData
	w(uint32(fileAlign))  // PointerToRawData
	w([3]uint32{})        // relocations, line numbers, their counts
	w(uint32(0x40000040)) // INITIALIZED_DATA | MEM_READ
	if b.Len() > fileAlign {
		return nil, fmt.Errorf("the headers of %s take %d bytes, more than one block", name, b.Len())
	}
	b.Write(make([]byte, fileAlign-b.Len()))
	// The export directory, then its three tables, then the strings.
	w(uint32(0))        // Characteristics
	w(uint32(0))        // TimeDateStamp
	w(uint32(0))        // versions
	w(dllName)          // Name
	w(uint32(1))        // Base: the first ordinal
	w(uint32(n))        // NumberOfFunctions
	w(uint32(n))        // NumberOfNames
	w(uint32(funcs))    // AddressOfFunctions
	w(uint32(names))    // AddressOfNames
	w(uint32(ordinals)) // AddressOfNameOrdinals
	w(funcRVA)
	w(nameRVA)
	for i := range n {
		w(uint16(i))
	}
	b.Write(strData.Bytes())
	b.Write(make([]byte, fileAlign+rawLen-b.Len()))
	return b.Bytes(), nil
}
