# dcsflow 0.1.0: Vivado non-project batch flow for picipher_mp on xc7z020clg400-1
# run in this folder: vivado -mode batch -source build.tcl
# format: dcsflow-build-tcl v1 (docs/formats.md)
set here [file dirname [file normalize [info script]]]
read_verilog [file join $here netlist.v]
read_xdc [file join $here constraints.xdc]
link_design -top picipher_mp -part xc7z020clg400-1
opt_design
place_design
route_design
report_utilization -file [file join $here utilization.rpt]
report_timing_summary -file [file join $here timing.rpt]
write_checkpoint -force [file join $here routed.dcp]
# ports other than the board's clock and reset have no pin: allow the bitstream anyway
set_property SEVERITY {Warning} [get_drc_checks {NSTD-1 UCIO-1}]
write_bitstream -force -bin_file [file join $here routed.bit]
source [file join $here dump_tluts.tcl]
