-- 8x8 unsigned multiplier; operand C is a parameter input (VHDL attribute PARAM).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity Mul8 is
  port (
    x : in  std_logic_vector(7 downto 0);
    C : in  std_logic_vector(7 downto 0);
    p : out std_logic_vector(15 downto 0)
  );
  attribute PARAM : boolean;
  attribute PARAM of C : signal is true;
end entity Mul8;

architecture rtl of Mul8 is
begin
  p <= std_logic_vector(unsigned(x) * unsigned(C));
end architecture rtl;
