# dcsflow 0.1.0: after route_design, write tlut_cells.json (format dcsflow-vivado-tluts v1):
# LOC, BEL, LOCK_PINS, INIT and the get_bel_pins pin map of every TLUT cell
set here [file dirname [file normalize [info script]]]
proc dcs_json_str {s} {
    return "\"[string map {\\ \\\\ \" \\\"} $s]\""
}
set dcs_cells {dcs_tlut_0 dcs_tlut_1 dcs_tlut_2 dcs_tlut_3 dcs_tlut_4 dcs_tlut_5 dcs_tlut_6 dcs_tlut_7 dcs_tlut_8 dcs_tlut_9 dcs_tlut_10 dcs_tlut_11 dcs_tlut_12 dcs_tlut_13 dcs_tlut_14 dcs_tlut_15 dcs_tlut_16 dcs_tlut_17 dcs_tlut_18 dcs_tlut_19 dcs_tlut_20 dcs_tlut_21 dcs_tlut_22 dcs_tlut_23 dcs_tlut_24 dcs_tlut_25 dcs_tlut_26 dcs_tlut_27 dcs_tlut_28 dcs_tlut_29 dcs_tlut_30 dcs_tlut_31 dcs_tlut_32 dcs_tlut_33 dcs_tlut_34 dcs_tlut_35 dcs_tlut_36 dcs_tlut_37 dcs_tlut_38 dcs_tlut_39 dcs_tlut_40 dcs_tlut_41 dcs_tlut_42 dcs_tlut_43 dcs_tlut_44 dcs_tlut_45 dcs_tlut_46 dcs_tlut_47 dcs_tlut_48 dcs_tlut_49 dcs_tlut_50 dcs_tlut_51 dcs_tlut_52 dcs_tlut_53 dcs_tlut_54 dcs_tlut_55 dcs_tlut_56 dcs_tlut_57 dcs_tlut_58 dcs_tlut_59 dcs_tlut_60 dcs_tlut_61 dcs_tlut_62 dcs_tlut_63 dcs_tlut_64 dcs_tlut_65 dcs_tlut_66 dcs_tlut_67 dcs_tlut_68 dcs_tlut_69 dcs_tlut_70 dcs_tlut_71 dcs_tlut_72 dcs_tlut_73 dcs_tlut_74 dcs_tlut_75 dcs_tlut_76 dcs_tlut_77 dcs_tlut_78 dcs_tlut_79 dcs_tlut_80 dcs_tlut_81 dcs_tlut_82 dcs_tlut_83 dcs_tlut_84 dcs_tlut_85 dcs_tlut_86 dcs_tlut_87 dcs_tlut_88 dcs_tlut_89 dcs_tlut_90 dcs_tlut_91 dcs_tlut_92 dcs_tlut_93 dcs_tlut_94 dcs_tlut_95 dcs_tlut_96 dcs_tlut_97 dcs_tlut_98 dcs_tlut_99 dcs_tlut_100 dcs_tlut_101 dcs_tlut_102 dcs_tlut_103 dcs_tlut_104 dcs_tlut_105 dcs_tlut_106 dcs_tlut_107 dcs_tlut_108 dcs_tlut_109 dcs_tlut_110 dcs_tlut_111 dcs_tlut_112 dcs_tlut_113 dcs_tlut_114 dcs_tlut_115 dcs_tlut_116 dcs_tlut_117 dcs_tlut_118 dcs_tlut_119 dcs_tlut_120 dcs_tlut_121 dcs_tlut_122 dcs_tlut_123 dcs_tlut_124 dcs_tlut_125 dcs_tlut_126 dcs_tlut_127}
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
