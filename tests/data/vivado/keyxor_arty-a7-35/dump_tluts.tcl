# dcsflow 0.1.0: after route_design, write tlut_cells.json (format dcsflow-vivado-tluts v1):
# LOC, BEL, LOCK_PINS, INIT and the get_bel_pins pin map of every TLUT cell
set here [file dirname [file normalize [info script]]]
proc dcs_json_str {s} {
    return "\"[string map {\\ \\\\ \" \\\"} $s]\""
}
set dcs_cells {dcs_tlut_0 dcs_tlut_1 dcs_tlut_2 dcs_tlut_3 dcs_tlut_4 dcs_tlut_5 dcs_tlut_6 dcs_tlut_7 dcs_tlut_8 dcs_tlut_9 dcs_tlut_10 dcs_tlut_11 dcs_tlut_12 dcs_tlut_13 dcs_tlut_14 dcs_tlut_15 dcs_tlut_16 dcs_tlut_17 dcs_tlut_18 dcs_tlut_19 dcs_tlut_20 dcs_tlut_21 dcs_tlut_22 dcs_tlut_23}
# block-design flow: hierarchical path of the design instance (set by block_design.tcl)
if {![info exists dcs_prefix]} { set dcs_prefix "" }
set fh [open [file join $here tlut_cells.json] w]
puts $fh "{\"format\": \"dcsflow-vivado-tluts\", \"version\": 1, \"part\": [dcs_json_str [get_property PART [current_design]]], \"cells\": \["
set first 1
foreach name $dcs_cells {
    set c [get_cells -quiet "$dcs_prefix$name"]
    if {[llength $c] != 1} {
        close $fh
        error "dcsflow: TLUT cell $name not found in the routed design"
    }
    set pins {}
    foreach p [get_pins -of_objects $c -filter {DIRECTION == IN}] {
        set phys [lindex [split [get_bel_pins -quiet -of_objects $p] /] end]
        lappend pins "[dcs_json_str [get_property REF_PIN_NAME $p]]: [dcs_json_str $phys]"
    }
    if {$first} { set sep "" } else { set sep "," }
    set first 0
    puts $fh "$sep{\"name\": [dcs_json_str $name], \"loc\": [dcs_json_str [get_property LOC $c]], \"bel\": [dcs_json_str [get_property BEL $c]], \"lock_pins\": [dcs_json_str [get_property LOCK_PINS $c]], \"init\": [dcs_json_str [get_property INIT $c]], \"pins\": {[join $pins {, }]}}"
}
puts $fh "\]}"
close $fh
