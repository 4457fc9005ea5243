-- VHDL top of a mixed design: y = not (a xor k), the inversion in the Verilog module vinv.
library ieee;
use ieee.std_logic_1164.all;

entity vhdtop is
  port (
    a : in  std_logic_vector(7 downto 0);
    k : in  std_logic_vector(7 downto 0);  --PARAM
    y : out std_logic_vector(7 downto 0)
  );
end vhdtop;

architecture rtl of vhdtop is
  component vinv is
    port (x : in std_logic_vector(7 downto 0); z : out std_logic_vector(7 downto 0));
  end component;
  signal t : std_logic_vector(7 downto 0);
begin
  t <= a xor k;
  u : vinv port map (x => t, z => y);
end rtl;
