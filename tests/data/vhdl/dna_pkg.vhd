-- Bases as 2-bit codes (A=00, C=01, G=10, T=11) and a base comparison, used by dna_match.vhd.
library ieee;
use ieee.std_logic_1164.all;

package dna_pkg is
  constant QUERY_BASES : natural := 6;
  function base_eq(a, b : std_logic_vector(1 downto 0)) return std_logic;
end package;

package body dna_pkg is
  function base_eq(a, b : std_logic_vector(1 downto 0)) return std_logic is
  begin
    if a = b then return '1'; else return '0'; end if;
  end function;
end package body;
