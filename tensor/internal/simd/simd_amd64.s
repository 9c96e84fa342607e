//go:build amd64 && !purego

#include "textflag.h"

// Each loop runs i over [0, n): 16 elements a pass while 16 remain (four
// XMM registers of four lanes), then one at a time. PS is the packed
// instruction (ADDPS …), SS its scalar twin (ADDSS …), STORE the packed
// store: MOVUPS, or MOVNTPS for the streaming variants, which the Go side
// calls only with dst 16-byte aligned and n a multiple of 16.
// Registers: DI dst, SI a, DX b, CX n, BX n rounded down to 16, AX i,
// X8 the scalar s broadcast to four lanes.

// VV: dst[i] = a[i] PS b[i].
#define VV(NAME, PS, SS, STORE) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	MOVQ dst+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
	MOVQ CX, BX; \
	ANDQ $~15, BX; \
	JZ tail; \
loop: \
	MOVUPS (SI)(AX*4), X0; \
	MOVUPS 16(SI)(AX*4), X1; \
	MOVUPS 32(SI)(AX*4), X2; \
	MOVUPS 48(SI)(AX*4), X3; \
	MOVUPS (DX)(AX*4), X4; \
	MOVUPS 16(DX)(AX*4), X5; \
	MOVUPS 32(DX)(AX*4), X6; \
	MOVUPS 48(DX)(AX*4), X7; \
	PS X4, X0; \
	PS X5, X1; \
	PS X6, X2; \
	PS X7, X3; \
	STORE X0, (DI)(AX*4); \
	STORE X1, 16(DI)(AX*4); \
	STORE X2, 32(DI)(AX*4); \
	STORE X3, 48(DI)(AX*4); \
	ADDQ $16, AX; \
	CMPQ AX, BX; \
	JLT loop; \
tail: \
	CMPQ AX, CX; \
	JGE done; \
	MOVSS (SI)(AX*4), X0; \
	MOVSS (DX)(AX*4), X4; \
	SS X4, X0; \
	MOVSS X0, (DI)(AX*4); \
	INCQ AX; \
	JMP tail; \
done: \
	RET

// VS: dst[i] = a[i] PS s.
#define VS(NAME, PS, SS, STORE) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	MOVQ dst+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVSS s+16(FP), X8; \
	SHUFPS $0, X8, X8; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
	MOVQ CX, BX; \
	ANDQ $~15, BX; \
	JZ tail; \
loop: \
	MOVUPS (SI)(AX*4), X0; \
	MOVUPS 16(SI)(AX*4), X1; \
	MOVUPS 32(SI)(AX*4), X2; \
	MOVUPS 48(SI)(AX*4), X3; \
	PS X8, X0; \
	PS X8, X1; \
	PS X8, X2; \
	PS X8, X3; \
	STORE X0, (DI)(AX*4); \
	STORE X1, 16(DI)(AX*4); \
	STORE X2, 32(DI)(AX*4); \
	STORE X3, 48(DI)(AX*4); \
	ADDQ $16, AX; \
	CMPQ AX, BX; \
	JLT loop; \
tail: \
	CMPQ AX, CX; \
	JGE done; \
	MOVSS (SI)(AX*4), X0; \
	SS X8, X0; \
	MOVSS X0, (DI)(AX*4); \
	INCQ AX; \
	JMP tail; \
done: \
	RET

// SV: dst[i] = s PS b[i].
#define SV(NAME, PS, SS, STORE) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	MOVQ dst+0(FP), DI; \
	MOVSS s+8(FP), X8; \
	SHUFPS $0, X8, X8; \
	MOVQ b+16(FP), DX; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
	MOVQ CX, BX; \
	ANDQ $~15, BX; \
	JZ tail; \
loop: \
	MOVUPS (DX)(AX*4), X4; \
	MOVUPS 16(DX)(AX*4), X5; \
	MOVUPS 32(DX)(AX*4), X6; \
	MOVUPS 48(DX)(AX*4), X7; \
	MOVAPS X8, X0; \
	MOVAPS X8, X1; \
	MOVAPS X8, X2; \
	MOVAPS X8, X3; \
	PS X4, X0; \
	PS X5, X1; \
	PS X6, X2; \
	PS X7, X3; \
	STORE X0, (DI)(AX*4); \
	STORE X1, 16(DI)(AX*4); \
	STORE X2, 32(DI)(AX*4); \
	STORE X3, 48(DI)(AX*4); \
	ADDQ $16, AX; \
	CMPQ AX, BX; \
	JLT loop; \
tail: \
	CMPQ AX, CX; \
	JGE done; \
	MOVSS (DX)(AX*4), X4; \
	MOVAPS X8, X0; \
	SS X4, X0; \
	MOVSS X0, (DI)(AX*4); \
	INCQ AX; \
	JMP tail; \
done: \
	RET

VV(·addVV, ADDPS, ADDSS, MOVUPS)
VV(·subVV, SUBPS, SUBSS, MOVUPS)
VV(·mulVV, MULPS, MULSS, MOVUPS)
VV(·divVV, DIVPS, DIVSS, MOVUPS)
VV(·addVVNT, ADDPS, ADDSS, MOVNTPS)
VV(·subVVNT, SUBPS, SUBSS, MOVNTPS)
VV(·mulVVNT, MULPS, MULSS, MOVNTPS)
VV(·divVVNT, DIVPS, DIVSS, MOVNTPS)

VS(·addVS, ADDPS, ADDSS, MOVUPS)
VS(·subVS, SUBPS, SUBSS, MOVUPS)
VS(·mulVS, MULPS, MULSS, MOVUPS)
VS(·divVS, DIVPS, DIVSS, MOVUPS)
VS(·addVSNT, ADDPS, ADDSS, MOVNTPS)
VS(·subVSNT, SUBPS, SUBSS, MOVNTPS)
VS(·mulVSNT, MULPS, MULSS, MOVNTPS)
VS(·divVSNT, DIVPS, DIVSS, MOVNTPS)

SV(·addSV, ADDPS, ADDSS, MOVUPS)
SV(·subSV, SUBPS, SUBSS, MOVUPS)
SV(·mulSV, MULPS, MULSS, MOVUPS)
SV(·divSV, DIVPS, DIVSS, MOVUPS)
SV(·addSVNT, ADDPS, ADDSS, MOVNTPS)
SV(·subSVNT, SUBPS, SUBSS, MOVNTPS)
SV(·mulSVNT, MULPS, MULSS, MOVNTPS)
SV(·divSVNT, DIVPS, DIVSS, MOVNTPS)

// func Fence()
TEXT ·Fence(SB), NOSPLIT, $0-0
	SFENCE
	RET

// SUM4GROUP(OFF, STORE): four lanes at element AX, byte offset OFF:
// dst = (r0 + r1) + (r2 + r3) + 0.
#define SUM4GROUP(OFF, STORE) \
	MOVUPS OFF(SI)(AX*4), X0; \
	MOVUPS OFF(DX)(AX*4), X1; \
	MOVUPS OFF(R8)(AX*4), X2; \
	MOVUPS OFF(R9)(AX*4), X3; \
	ADDPS X1, X0; \
	ADDPS X3, X2; \
	ADDPS X2, X0; \
	ADDPS X9, X0; \
	STORE X0, OFF(DI)(AX*4)

// SUM4: dst[i] = (r0[i] + r1[i]) + (r2[i] + r3[i]) + 0, the pairwise order
// of the Go loop it replaces; the + 0 turns a -0 sum into +0 as the
// float64 accumulator's identity does.
#define SUM4(NAME, STORE) \
TEXT NAME(SB), NOSPLIT, $0-48; \
	MOVQ dst+0(FP), DI; \
	MOVQ r0+8(FP), SI; \
	MOVQ r1+16(FP), DX; \
	MOVQ r2+24(FP), R8; \
	MOVQ r3+32(FP), R9; \
	MOVQ n+40(FP), CX; \
	XORPS X9, X9; \
	XORQ AX, AX; \
	MOVQ CX, BX; \
	ANDQ $~15, BX; \
	JZ tail; \
loop: \
	SUM4GROUP(0, STORE); \
	SUM4GROUP(16, STORE); \
	SUM4GROUP(32, STORE); \
	SUM4GROUP(48, STORE); \
	ADDQ $16, AX; \
	CMPQ AX, BX; \
	JLT loop; \
tail: \
	CMPQ AX, CX; \
	JGE done; \
	MOVSS (SI)(AX*4), X0; \
	MOVSS (DX)(AX*4), X1; \
	MOVSS (R8)(AX*4), X2; \
	MOVSS (R9)(AX*4), X3; \
	ADDSS X1, X0; \
	ADDSS X3, X2; \
	ADDSS X2, X0; \
	ADDSS X9, X0; \
	MOVSS X0, (DI)(AX*4); \
	INCQ AX; \
	JMP tail; \
done: \
	RET

SUM4(·sum4, MOVUPS)
SUM4(·sum4NT, MOVNTPS)

// func sumBlocks(b *float32, blocks int) float64
//
// The float64 sum of blocks sums of 128 elements each, every block summed
// in eight float32 lanes (lane k takes elements 8i+k: X0 lanes 0-3, X1
// lanes 4-7) and the lanes added in the tree
// ((a0+a1)+(a2+a3)) + ((a4+a5)+(a6+a7)), the Go loop's order operand for
// operand. X10 is the running total.
TEXT ·sumBlocks(SB), NOSPLIT, $0-24
	MOVQ b+0(FP), SI
	MOVQ blocks+8(FP), CX
	XORPS X10, X10
	TESTQ CX, CX
	JZ done
block:
	XORPS X0, X0
	XORPS X1, X1
	MOVQ $16, DX // 16 passes of 8 elements
lanes:
	MOVUPS (SI), X4
	MOVUPS 16(SI), X5
	ADDPS X4, X0
	ADDPS X5, X1
	ADDQ $32, SI
	DECQ DX
	JNZ lanes
	// X0 = [a0 a1 a2 a3] -> lane 0 = (a0+a1)+(a2+a3)
	MOVAPS X0, X2
	SHUFPS $0xB1, X2, X2 // [a1 a0 a3 a2]
	ADDPS X2, X0         // [a0+a1 . a2+a3 .]
	MOVHLPS X0, X3       // X3 lane 0 = a2+a3
	ADDSS X3, X0
	// X1 the same for a4..a7
	MOVAPS X1, X2
	SHUFPS $0xB1, X2, X2
	ADDPS X2, X1
	MOVHLPS X1, X3
	ADDSS X3, X1
	ADDSS X1, X0
	CVTSS2SD X0, X0
	ADDSD X0, X10
	DECQ CX
	JNZ block
done:
	MOVSD X10, ret+16(FP)
	RET
