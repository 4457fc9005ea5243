-- VHDL part of a mixed design: y = a xor k.
library ieee;
use ieee.std_logic_1164.all;

entity xorsub is
  port (a, k : in std_logic_vector(7 downto 0); y : out std_logic_vector(7 downto 0));
end xorsub;

architecture rtl of xorsub is
begin
  y <= a xor k;
end rtl;
