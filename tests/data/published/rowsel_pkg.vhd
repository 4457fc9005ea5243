-- Constants of the row-select example (a package the top uses: GHDL must analyse it first).
library ieee;
use ieee.std_logic_1164.all;

package rowsel_pkg is
  constant ROWS  : integer := 6;
  constant WIDTH : integer := 4;
end package;
