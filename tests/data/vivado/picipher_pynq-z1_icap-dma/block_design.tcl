# dcsflow: PYNQ-Z1 block design for picipher_mp -- PS7 + the ICAP stream controller (dcs_icap_dma_top.v) at
# 0x40020000, reading the rekey's words from DDR through S_AXI_HP0, + the design behind an
# AXI-Lite register wrapper (dcs_axil_wrapper.v) at 0x43C00000, all on FCLK_CLK0 (100 MHz).
# format: dcsflow-bd-tcl v1 (docs/formats.md). Run in this folder (Vivado project mode: a block
# design needs a project):   vivado -mode batch -source block_design.tcl
# Writes pynq/ (project), routed.bit + routed.bin and tlut_cells.json for `dcsflow import`.
# Not run here: no Vivado on the machines this was written on.
set here [file dirname [file normalize [info script]]]
create_project -force dcs_pynq [file join $here pynq] -part xc7z020clg400-1
add_files -norecurse [list [file join $here netlist.v] [file join $here dcs_axil_wrapper.v] [file join $here dcs_icap_dma.v] [file join $here dcs_icap_dma_top.v]]
# TLUT placement, scoped to the design's instance inside the block design (UG903 scoped constraints)
add_files -fileset constrs_1 -norecurse [file join $here tlut_placement.xdc]
set_property SCOPED_TO_REF picipher_mp [get_files tlut_placement.xdc]
update_compile_order -fileset sources_1

create_bd_design design_1
create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5 ps7
apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 -config {make_external "FIXED_IO, DDR" apply_board_preset "0"} [get_bd_cells ps7]
set_property -dict [list CONFIG.PCW_USE_M_AXI_GP0 {1} CONFIG.PCW_USE_S_AXI_HP0 {1} CONFIG.PCW_S_AXI_HP0_DATA_WIDTH {32} CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ {100}] [get_bd_cells ps7]
# ICAPE2 takes at most 100 MHz (DS187): the controller runs on FCLK_CLK0
create_bd_cell -type module -reference dcs_icap_dma_top icapdma
create_bd_cell -type module -reference dcs_axil_wrapper dcs
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master /ps7/M_AXI_GP0 Clk Auto} [get_bd_intf_pins icapdma/s_axi]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master /icapdma/m_axi Clk Auto} [get_bd_intf_pins ps7/S_AXI_HP0]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master /ps7/M_AXI_GP0 Clk Auto} [get_bd_intf_pins dcs/s_axi]
assign_bd_address
# the segments' names depend on the Vivado version: find them by the slave they map
set icapdma_seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces ps7/Data] -filter {NAME =~ *icapdma*}]
set dcs_seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces ps7/Data] -filter {NAME =~ *dcs*}]
set_property range 64K $icapdma_seg
set_property offset 0x40020000 $icapdma_seg
set_property range 64K $dcs_seg
set_property offset 0x43C00000 $dcs_seg
validate_bd_design
save_bd_design
set wrapper [make_wrapper -files [get_files design_1.bd] -top]
add_files -norecurse $wrapper
set_property top design_1_wrapper [current_fileset]

launch_runs impl_1 -to_step write_bitstream -jobs 2
wait_on_run impl_1
open_run impl_1
write_bitstream -force -bin_file [file join $here routed.bit]
# the design sits below the block design's hierarchy: dump_tluts.tcl prefixes the cell names
set dcs_prefix "[get_property NAME [get_cells -hierarchical -filter {REF_NAME == picipher_mp}]]/"
source [file join $here dump_tluts.tcl]
