-- Types of fc_records.vhd: records with a subtype, an ascending vector, unsigned and bit fields, a
-- record nested in a record, and an array of records.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

package fc_records_pkg is
  subtype nib_t is std_logic_vector(3 downto 0);

  type flags_t is record
    up : std_logic_vector(0 to 2);      -- ascending: up(0) is the leftmost bit
    b  : bit;
  end record;

  type entry_t is record
    val  : nib_t;
    mask : unsigned(3 downto 0);
    fl   : flags_t;                     -- a record in a record
  end record;

  type entries_t is array (0 to 1) of entry_t;

  type result_t is record
    hit : std_logic;
    idx : unsigned(1 downto 0);
    fl  : flags_t;
  end record;
end package;
